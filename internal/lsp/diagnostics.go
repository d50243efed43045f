package lsp

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"go.lsp.dev/protocol"
)

// maxListed caps the diagnostics tool's list.
const maxListed = 100

// Diagnostics lists the errors and warnings the servers report: for one
// file (synced and checked now), or, with path empty, for every file the
// running servers have reported on.
func (m *Manager) Diagnostics(ctx context.Context, path string) (string, error) {
	if path != "" {
		abs := m.abs(path)
		sl := m.slotFor(abs)
		if sl == nil {
			return "", fmt.Errorf("%s: %w (servers here: %s)", path, ErrNoServer, m.names())
		}
		if _, err := sl.get(ctx, m); err != nil {
			return "", err
		}
		b := m.report(ctx, sl, abs)
		lines := m.listed(abs, b.diags)
		note := ""
		if !b.known {
			note = fmt.Sprintf("\nNote: %s sent no fresh report within %s; this is the last one it gave.", sl.spec.Name, m.opts.DiagnosticsWait)
		}
		if len(lines) == 0 {
			return fmt.Sprintf("%s: no errors or warnings (%s)%s", path, sl.spec.Name, note), nil
		}
		return capped(fmt.Sprintf("%s (%s):", path, sl.spec.Name), lines) + note, nil
	}
	var lines, notes []string
	for _, sl := range m.slots {
		srv, err := sl.get(ctx, m)
		if err != nil {
			notes = append(notes, err.Error())
			continue
		}
		all := srv.store.all()
		files := make([]protocol.DocumentURI, 0, len(all))
		for u := range all {
			files = append(files, u)
		}
		slices.Sort(files)
		for _, u := range files {
			if p := uriPath(u); p != "" {
				lines = append(lines, m.listed(p, all[u])...)
			}
		}
		notes = append(notes, fmt.Sprintf("%s has reported on %d files so far", sl.spec.Name, len(all)))
	}
	head := "workspace diagnostics:"
	if len(lines) == 0 {
		head = "workspace diagnostics: no errors or warnings"
	}
	out := capped(head, lines)
	for _, n := range notes {
		out += "\nNote: " + n
	}
	return out, nil
}

// listed formats a file's errors and warnings, errors first.
func (m *Manager) listed(abs string, diags []protocol.Diagnostic) []string {
	var errs, warns []string
	for _, d := range diags {
		switch {
		case isError(d):
			errs = append(errs, "error: "+m.format(abs, d))
		case d.Severity == protocol.DiagnosticSeverityWarning:
			warns = append(warns, "warning: "+m.format(abs, d))
		}
	}
	return append(errs, warns...)
}

func capped(head string, lines []string) string {
	var b strings.Builder
	b.WriteString(head)
	for i, l := range lines {
		if i == maxListed {
			fmt.Fprintf(&b, "\n(and %d more)", len(lines)-maxListed)
			break
		}
		b.WriteString("\n" + l)
	}
	return b.String()
}
