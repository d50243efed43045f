package anthropic

import (
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
)

// maxBreakpoints is the API's limit on cache_control markers per request;
// a request with more is rejected.
const maxBreakpoints = 4

// lookbackMargin is how many blocks a call may add before the previous
// call's breakpoint is marked again. The API looks for an earlier cache
// entry only about 20 blocks back from each breakpoint; the margin stays
// under that because the documented figure is approximate.
const lookbackMargin = 15

// markLastBlock puts the moving cache breakpoint on the last block of the
// last message that can carry one, so that the next call reads the whole
// conversation so far from cache.
func markLastBlock(msgs []wireMessage) {
	if len(msgs) == 0 {
		return
	}
	blocks := msgs[len(msgs)-1].blocks
	if i := lastCacheable(blocks); i >= 0 {
		*blocks[i].GetCacheControl() = anthropic.NewCacheControlEphemeralParam()
	}
}

// markLookback also marks the block where the previous call's moving
// breakpoint sat, when this call's moving breakpoint is more than
// lookbackMargin blocks past it. Without it a step that adds many blocks
// (a dozen parallel tool calls and their results) finds no earlier entry
// within the API's lookback, and the whole conversation is written to
// cache again instead of read.
//
// The previous call needs no remembering: it sent the conversation up to
// the user message before the newest assistant message (the assistant
// message is its reply), and its moving breakpoint was that message's
// last block. When that prefix is not cached after all (a resumed
// session, a pruned history), the mark only adds an entry inside the
// prefix the moving breakpoint writes anyway.
func markLookback(msgs []wireMessage) {
	reply := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if !msgs[i].user {
			reply = i
			break
		}
	}
	if reply < 1 {
		return // no earlier call within this conversation
	}
	anchorBlocks := msgs[reply-1].blocks
	anchor := lastCacheable(anchorBlocks)
	moving := lastCacheable(msgs[len(msgs)-1].blocks)
	if anchor < 0 || moving < 0 {
		return
	}
	added := len(anchorBlocks) - 1 - anchor
	for _, m := range msgs[reply : len(msgs)-1] {
		added += len(m.blocks)
	}
	added += moving + 1
	if added > lookbackMargin {
		*anchorBlocks[anchor].GetCacheControl() = anthropic.NewCacheControlEphemeralParam()
	}
}

// lastCacheable is the index of the last block that can carry
// cache_control, or -1. Thinking blocks cannot: GetCacheControl returns
// nil for them.
func lastCacheable(blocks []anthropic.ContentBlockParamUnion) int {
	for i := len(blocks) - 1; i >= 0; i-- {
		if blocks[i].GetCacheControl() != nil {
			return i
		}
	}
	return -1
}

// appendTail adds the volatile context as the last block of the request,
// after the moving breakpoint, so that its changes never invalidate the
// cached prefix. It goes into the last message when that is the user's, as
// it normally is; otherwise it becomes a user message of its own.
func appendTail(msgs []wireMessage, tail string) []wireMessage {
	if strings.TrimSpace(tail) == "" {
		return msgs
	}
	block := anthropic.NewTextBlock(tail)
	if n := len(msgs); n > 0 && msgs[n-1].user {
		msgs[n-1].blocks = append(msgs[n-1].blocks, block)
		return msgs
	}
	return append(msgs, wireMessage{user: true, blocks: []anthropic.ContentBlockParamUnion{block}})
}

// limitBreakpoints is the one place that enforces the API's limit of four
// cache breakpoints. When a request asks for more, the earliest are
// dropped, but never the last system breakpoint (it caches tools and system
// prompt together) nor the last message breakpoint (it caches the
// conversation).
func limitBreakpoints(params *anthropic.MessageNewParams) {
	type breakpoint struct {
		cc   *anthropic.CacheControlEphemeralParam
		keep bool
	}
	var marks []breakpoint // in prefix order: tools, system, messages
	add := func(cc *anthropic.CacheControlEphemeralParam) bool {
		if cc == nil || (cc.Type == "" && cc.TTL == "") {
			return false
		}
		marks = append(marks, breakpoint{cc: cc})
		return true
	}
	for i := range params.Tools {
		add(params.Tools[i].GetCacheControl())
	}
	lastSystem := -1
	for i := range params.System {
		if add(&params.System[i].CacheControl) {
			lastSystem = len(marks) - 1
		}
	}
	lastMessage := -1
	for _, m := range params.Messages {
		for _, b := range messageBlocks(m) {
			if add(b.GetCacheControl()) {
				lastMessage = len(marks) - 1
			}
		}
	}
	excess := len(marks) - maxBreakpoints
	if excess <= 0 {
		return
	}
	if lastSystem >= 0 {
		marks[lastSystem].keep = true
	}
	if lastMessage >= 0 {
		marks[lastMessage].keep = true
	}
	for i := 0; i < len(marks) && excess > 0; i++ {
		if !marks[i].keep {
			*marks[i].cc = anthropic.CacheControlEphemeralParam{}
			excess--
		}
	}
}

func messageBlocks(m anthropic.MessageParam) []anthropic.ContentBlockParamUnion {
	switch {
	case m.OfUser != nil:
		return m.OfUser.Content
	case m.OfAssistant != nil:
		return m.OfAssistant.Content
	}
	return nil
}
