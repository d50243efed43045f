package anthropic

import (
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
)

// maxBreakpoints is the API's limit on cache_control markers per request;
// a request with more is rejected.
const maxBreakpoints = 4

// markLastBlock puts the moving cache breakpoint on the last block of the
// last message that can carry one, so that the next call reads the whole
// conversation so far from cache.
func markLastBlock(msgs []wireMessage) {
	if len(msgs) == 0 {
		return
	}
	blocks := msgs[len(msgs)-1].blocks
	for i := len(blocks) - 1; i >= 0; i-- {
		// Thinking blocks cannot carry cache_control; GetCacheControl
		// returns nil for them.
		if cc := blocks[i].GetCacheControl(); cc != nil {
			*cc = anthropic.NewCacheControlEphemeralParam()
			return
		}
	}
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
