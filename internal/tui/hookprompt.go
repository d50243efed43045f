package tui

import (
	"fmt"
	"strings"

	"github.com/shiro-neko/shiro/internal/hooks"
)

// hookPrompt asks the person to approve a hook that is new or changed. It
// shows exactly what ApproveDigest will pin: if the folder changes while
// the prompt is open, the approval is refused rather than applied to
// something else.
type hookPrompt struct {
	status hooks.Status
	scroll int
}

// hooksToReview lists the hooks that need a decision before they can run.
func hooksToReview(r *hooks.Runner) []hooks.Status {
	if r == nil {
		return nil
	}
	var out []hooks.Status
	for _, s := range r.Status() {
		if s.State == hooks.StatePending || s.State == hooks.StateChanged {
			out = append(out, s)
		}
	}
	return out
}

func (p *hookPrompt) view(st *styles, width, height int) string {
	s := p.status
	title := fmt.Sprintf("hook %s is new: approve it to let it run", s.Name)
	if s.State == hooks.StateChanged {
		title = fmt.Sprintf("hook %s changed since you approved it", s.Name)
	}
	head := []string{
		st.boxTitle.Render(title),
		"path:   " + s.Dir,
		fmt.Sprintf("kind:   %s (%s hook)", s.Kind, s.Origin),
		"tools:  " + strings.Join(s.Tools, ", "),
		"sha256: " + s.Digest,
	}
	if s.State == hooks.StateChanged && s.Approved != nil {
		head = append(head, st.warn.Render("was:    "+s.Approved.Digest))
	}
	body := []string{st.dim.Render("manifest.json:")}
	manifest := s.Manifest
	if manifest == "" {
		manifest = "(no manifest.json)"
	}
	body = append(body, strings.Split(strings.TrimRight(manifest, "\n"), "\n")...)
	footer := st.keyHint.Render("a") + " approve this digest | " + st.keyHint.Render("s") + " skip (it blocks the calls it covers until approved)"
	return modal(st, width, height, head, body, &p.scroll, footer, noFocus)
}
