package agent

// ContextUse is how much of the model's context window the conversation
// fills: its estimated tokens, and the window of the model the next turn
// uses, for front ends that show it (the status line command).
func (s *session) ContextUse() (used, window int) {
	return estimateAll(s.History()), s.contextWindow(s.Model())
}
