package lsp

import (
	"context"
	"encoding/json"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// WithDiagnostics wraps every tool that writes files (write_file,
// edit_file, multi_edit, apply_patch, the line tools, moves) so that its
// result carries the errors the call introduced in the files it changed.
// The files are the call's Plan().Writes, the same list the gate judged.
// Other tools pass through as they are.
func (m *Manager) WithDiagnostics(list []tool.Tool) []tool.Tool {
	if !m.Active() {
		return list
	}
	out := make([]tool.Tool, len(list))
	for i, t := range list {
		switch {
		case t.Info().Effect == tool.Writes:
			t = watched{Tool: t, m: m}
		case t.Info().ByPattern:
			t = m.fallback(t)
		}
		out[i] = t
	}
	return out
}

// fallback is a pattern-based tool whose description says which files
// the language server answers for instead.
func (m *Manager) fallback(t tool.Tool) tool.Tool {
	info := *t.Info()
	info.Description += " Matches by pattern: for " + m.files() + " files prefer definition, references and symbols, which the language server answers exactly."
	return described{Tool: t, info: &info}
}

type described struct {
	tool.Tool
	info *tool.Info
}

func (d described) Info() *tool.Info { return d.info }

// watched is a writing tool whose calls report new diagnostics.
type watched struct {
	tool.Tool
	m *Manager
}

func (w watched) Prepare(input json.RawMessage) (tool.Prepared, error) {
	p, err := w.Tool.Prepare(input)
	if err != nil {
		return nil, err
	}
	c := watchedCall{Prepared: p, m: w.m}
	if pv, ok := p.(tool.Previewer); ok {
		return previewingCall{watchedCall: c, pv: pv}, nil
	}
	return c, nil
}

type watchedCall struct {
	tool.Prepared
	m *Manager
}

func (c watchedCall) Run(ctx context.Context, rt tool.Runtime) (tool.Result, error) {
	base := c.m.Before(ctx, c.Plan().Writes)
	res, err := c.Prepared.Run(ctx, rt)
	if err != nil || len(base) == 0 {
		return res, err
	}
	if note := c.m.After(ctx, base); note != "" {
		res.Output += "\n\n" + note
	}
	return res, nil
}

// previewingCall keeps the wrapped call's preview for the approval prompt.
type previewingCall struct {
	watchedCall
	pv tool.Previewer
}

func (c previewingCall) Preview(ctx context.Context) (*protocol.Diff, error) {
	return c.pv.Preview(ctx)
}
