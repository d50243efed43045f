package lsp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"go.lsp.dev/protocol"
)

// maxReported caps the errors one result lists: enough to act on, never a
// wall of text after a broken import.
const maxReported = 10

// baseline is what a server reported for a file before a change.
type baseline struct {
	known bool
	diags []protocol.Diagnostic
}

// Baseline is what the servers reported for the files an edit will change,
// taken before it runs.
type Baseline map[string]baseline

// turnState keeps, per file, the report from before the turn's first
// change to it, for the check at the end of the turn.
type turnState struct {
	mu     sync.Mutex
	origin map[string]baseline
	asked  bool
}

// Before readies the servers for the files an edit will change (starting
// them the first time) and takes what they report now. Files no server
// answers for are left out.
func (m *Manager) Before(ctx context.Context, paths []string) Baseline {
	out := Baseline{}
	if !m.Active() {
		return out
	}
	for _, p := range paths {
		abs := m.abs(p)
		sl := m.slotFor(abs)
		if sl == nil {
			continue
		}
		b := m.report(ctx, sl, abs)
		out[abs] = b
		m.turn.mu.Lock()
		if _, ok := m.turn.origin[abs]; !ok {
			m.turn.origin[abs] = b
		}
		m.turn.mu.Unlock()
	}
	return out
}

// report brings the server's copy of path up to date and returns its
// diagnostics for it, waiting at most DiagnosticsWait for fresh ones.
func (m *Manager) report(ctx context.Context, sl *slot, abs string) baseline {
	srv, err := sl.get(ctx, m)
	if err != nil {
		return baseline{}
	}
	sl.touch(abs)
	rctx, stop := srv.bound(ctx)
	defer stop()
	wctx, cancel := context.WithTimeout(rctx, m.opts.DiagnosticsWait)
	defer cancel()
	mark, sent, err := srv.syncFile(wctx, abs)
	if err != nil {
		return baseline{}
	}
	if srv.pulls() {
		if !srv.isOpen(abs) {
			return baseline{known: true} // the file does not exist
		}
		if list, err := srv.pull(wctx, abs); err == nil {
			return baseline{known: true, diags: list}
		}
	}
	if !sent {
		if !srv.isOpen(abs) {
			return baseline{known: true} // the file does not exist
		}
		if list, ok := srv.store.get(fileURI(abs)); ok {
			return baseline{known: true, diags: list}
		}
	}
	list, fresh := srv.store.wait(wctx, fileURI(abs), mark)
	return baseline{known: fresh, diags: list}
}

// After reports what the edit broke: for every file in base, the errors
// the server reports now that it did not before, capped, as
// file:line:col lines. Empty when there are none. A server that was
// restarted or is off is mentioned once.
func (m *Manager) After(ctx context.Context, base Baseline) string {
	if len(base) == 0 {
		return ""
	}
	paths := make([]string, 0, len(base))
	for p := range base {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	var found, unsure, notes []string
	for _, abs := range paths {
		sl := m.slotFor(abs)
		now := m.report(ctx, sl, abs)
		if n := sl.takeNotice(); n != "" && !slices.Contains(notes, n) {
			notes = append(notes, n)
		}
		for _, d := range newErrors(base[abs].diags, now.diags) {
			if base[abs].known {
				found = append(found, m.format(abs, d))
			} else {
				unsure = append(unsure, m.format(abs, d))
			}
		}
	}
	if len(unsure) > 0 {
		// The server had not reported on the file before the change (it
		// was still loading): these may be older than this call.
		notes = append([]string{summarize("the language server had not checked these files before this call, so these errors may predate it:", unsure, nil)}, notes...)
	}
	return summarize("The language server reports new errors in the files this call changed:", found, notes)
}

// EndCheck is the check before a turn ends: the errors the files changed
// this turn have now that they did not have before the turn, once per
// turn. Empty when there are none or the turn was asked already.
func (m *Manager) EndCheck(ctx context.Context) string {
	if !m.Active() {
		return ""
	}
	m.turn.mu.Lock()
	if m.turn.asked {
		m.turn.mu.Unlock()
		return ""
	}
	m.turn.asked = true
	origin := m.turn.origin
	m.turn.mu.Unlock()
	paths := make([]string, 0, len(origin))
	for p := range origin {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	var found []string
	for _, abs := range paths {
		now := m.report(ctx, m.slotFor(abs), abs)
		for _, d := range newErrors(origin[abs].diags, now.diags) {
			found = append(found, m.format(abs, d))
		}
	}
	if len(found) == 0 {
		return ""
	}
	return summarize("Before you finish: the files you changed this turn have errors they did not have before it. Fix them, or say why they stay:", found, nil)
}

// BeginTurn forgets the previous turn's files.
func (m *Manager) BeginTurn() {
	if m == nil {
		return
	}
	m.turn.mu.Lock()
	defer m.turn.mu.Unlock()
	m.turn.origin = map[string]baseline{}
	m.turn.asked = false
}

// summarize joins a heading, the capped list and notes.
func summarize(heading string, found, notes []string) string {
	var b strings.Builder
	if len(found) > 0 {
		b.WriteString(heading)
		for i, f := range found {
			if i == maxReported {
				fmt.Fprintf(&b, "\n(and %d more; the diagnostics tool lists them all)", len(found)-maxReported)
				break
			}
			b.WriteString("\n" + f)
		}
	}
	for _, n := range notes {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString("Note: " + n)
	}
	return b.String()
}

// newErrors are the errors in now beyond those in before. Positions are
// not compared (an edit above moves everything below it): an error is
// the same while its message, code and source are.
func newErrors(before, now []protocol.Diagnostic) []protocol.Diagnostic {
	seen := map[string]int{}
	for _, d := range before {
		if isError(d) {
			seen[key(d)]++
		}
	}
	var out []protocol.Diagnostic
	for _, d := range now {
		if !isError(d) {
			continue
		}
		if k := key(d); seen[k] > 0 {
			seen[k]--
			continue
		}
		out = append(out, d)
	}
	return out
}

// isError: a server that gives no severity means an error, as the
// protocol leaves it to the client and most send one anyway.
func isError(d protocol.Diagnostic) bool {
	return d.Severity == protocol.DiagnosticSeverityError || d.Severity == 0
}

func key(d protocol.Diagnostic) string {
	return fmt.Sprintf("%s\x00%v\x00%s", d.Source, d.Code, d.Message)
}

// format is one diagnostic as path:line:col: message (source), with the
// protocol's zero-based line and character made one-based.
func (m *Manager) format(abs string, d protocol.Diagnostic) string {
	msg := strings.ReplaceAll(strings.TrimSpace(d.Message), "\n", " ")
	if d.Source != "" {
		msg += " (" + d.Source + ")"
	}
	return fmt.Sprintf("%s:%d:%d: %s", m.rel(abs), d.Range.Start.Line+1, d.Range.Start.Character+1, msg)
}
