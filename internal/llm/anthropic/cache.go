package anthropic

// maxBreakpoints is the API's limit on cache_control markers per request;
// a request with more is rejected.
const maxBreakpoints = 4

// lookbackMargin is how many blocks a call may add before the previous
// call's breakpoint is marked again. The API looks for an earlier cache
// entry only about 20 blocks back from each breakpoint; the margin stays
// under that because the documented figure is approximate.
const lookbackMargin = 15

// blockPos names a content block of a request: message and block index.
type blockPos struct{ msg, block int }

func isMarked(marks []blockPos, msg, block int) bool {
	for _, m := range marks {
		if m.msg == msg && m.block == block {
			return true
		}
	}
	return false
}

// appendBreakpoints adds the message breakpoints, in prefix order.
//
// The moving breakpoint goes on the last block of the last message that
// can carry one, so that the next call reads the whole conversation so
// far from cache.
//
// The lookback breakpoint also marks the block where the previous call's
// moving breakpoint sat, when this call's moving breakpoint is more than
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
func appendBreakpoints(marks []blockPos, msgs []wireMessage) []blockPos {
	if len(msgs) == 0 {
		return marks
	}
	last := len(msgs) - 1
	moving := lastCacheable(msgs[last].blocks)
	if moving < 0 {
		return marks
	}
	reply := -1
	for i := last; i >= 0; i-- {
		if !msgs[i].user {
			reply = i
			break
		}
	}
	if reply >= 1 { // an earlier call within this conversation
		anchorBlocks := msgs[reply-1].blocks
		if anchor := lastCacheable(anchorBlocks); anchor >= 0 {
			added := len(anchorBlocks) - 1 - anchor
			for _, m := range msgs[reply:last] {
				added += len(m.blocks)
			}
			added += moving + 1
			if added > lookbackMargin {
				marks = append(marks, blockPos{reply - 1, anchor})
			}
		}
	}
	return append(marks, blockPos{last, moving})
}

// lastCacheable is the index of the last block that can carry
// cache_control, or -1.
func lastCacheable(blocks []rawBlock) int {
	for i := len(blocks) - 1; i >= 0; i-- {
		if blocks[i].cacheable {
			return i
		}
	}
	return -1
}

// limitBreakpoints is the one place that enforces the API's limit of four
// cache breakpoints. system says which system blocks are marked (it is
// changed in place); messages are the message breakpoints in prefix
// order. When there are more than four, the earliest are dropped, but
// never the last system breakpoint (it caches tools and system prompt
// together) nor the last message breakpoint (it caches the conversation).
// Tools carry no breakpoints of their own.
func limitBreakpoints(system []bool, messages []blockPos) []blockPos {
	count, lastSystem := 0, -1
	for i, marked := range system {
		if marked {
			count++
			lastSystem = i
		}
	}
	excess := count + len(messages) - maxBreakpoints
	for i := range system {
		if excess <= 0 {
			break
		}
		if system[i] && i != lastSystem {
			system[i] = false
			excess--
		}
	}
	if excess > 0 {
		// Keep the last message breakpoint; drop the earliest others.
		drop := min(excess, len(messages)-1)
		messages = messages[drop:]
	}
	return messages
}
