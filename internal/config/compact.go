package config

import "fmt"

// checkCompact validates compactAt: the share of the model's context
// window the next request may fill before older history is compacted
// into a summary. 1 turns automatic compaction off.
func (f File) checkCompact(name string) error {
	if f.CompactAt != nil && (*f.CompactAt < 0.1 || *f.CompactAt > 1) {
		return fmt.Errorf("%s: field \"compactAt\" must be a share of the context window between 0.1 and 1 (0.85 is the default; 1 turns automatic compaction off)", name)
	}
	return nil
}

// applyCompact takes compactAt from the user's file; the project's may
// only lower it (compact sooner), since a later compaction risks requests
// the model refuses.
func (s *Settings) applyCompact(user, project File) {
	if user.CompactAt != nil {
		s.CompactAt = *user.CompactAt
	}
	if p := project.CompactAt; p != nil && (s.CompactAt == 0 || *p < s.CompactAt) {
		s.CompactAt = *p
	}
}
