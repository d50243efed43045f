package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// Tools are the language-server tools, offered only when Detect found a
// server for the workspace (decided once per session, so the prompt's
// cached prefix stays put). Their descriptions name the servers and the
// files they answer for; for other files the pattern-based navigation
// tools (find_symbol, outline) remain.
func (m *Manager) Tools() []tool.Tool {
	if !m.Active() {
		return nil
	}
	return []tool.Tool{m.diagnosticsTool(), m.positionTool("definition"), m.positionTool("references"), m.positionTool("hover"), m.symbolsTool()}
}

// served says which servers answer for which files, for descriptions.
func (m *Manager) served() string {
	return "Answered by the language server (" + m.names() + "); for other files use find_symbol and outline."
}

type diagnosticsInput struct {
	Path string `json:"path,omitempty" jsonschema:"a file; omit for every file the servers have checked"`
}

func (m *Manager) diagnosticsTool() tool.Tool {
	return tool.New(tool.Def[diagnosticsInput]{
		Info: tool.Info{
			Name:        "diagnostics",
			Description: "The compiler's and type checker's errors and warnings for a file, or for the workspace. " + m.served(),
			Guidance:    "diagnostics: a language server's errors for a file or the workspace (edits already report the errors they add).",
			Set:         tool.SetNav, Effect: tool.Reads, Kind: protocol.KindRead, Subject: tool.PathSubject,
		},
		Check: func(in *diagnosticsInput) error { return m.checkPath(in.Path, true) },
		Plan: func(in *diagnosticsInput) tool.Plan {
			if in.Path == "" {
				return tool.Plan{Title: "workspace"}
			}
			return tool.Plan{Subjects: []string{in.Path}, Title: in.Path}
		},
		Run: func(ctx context.Context, _ tool.Runtime, in *diagnosticsInput) (tool.Result, error) {
			return tool.TextOf(m.Diagnostics(ctx, in.Path))
		},
	})
}

type positionInput struct {
	Path   string `json:"path"`
	Line   int    `json:"line" jsonschema:"one-based line the symbol is on"`
	Symbol string `json:"symbol,omitempty" jsonschema:"the identifier as written on that line"`
	Column int    `json:"column,omitempty" jsonschema:"one-based column, when symbol is not given"`
}

func (m *Manager) positionTool(name string) tool.Tool {
	what := map[string]string{
		"definition": "Where the symbol at a place in a file is defined (file:line:col and the line).",
		"references": "Every place the symbol at a place in a file is used, its declaration included.",
		"hover":      "The type, signature and documentation of the symbol at a place in a file.",
	}[name]
	run := map[string]func(context.Context, Position) (string, error){
		"definition": m.Definition, "references": m.References, "hover": m.Hover,
	}[name]
	return tool.New(tool.Def[positionInput]{
		Info: tool.Info{
			Name:        name,
			Description: what + " Name the symbol and the line it is on. " + m.served(),
			Guidance:    name + ": " + strings.ToLower(what[:1]) + what[1:],
			Set:         tool.SetNav, Effect: tool.Reads, Kind: protocol.KindSearch, Subject: tool.PathSubject,
		},
		Check: func(in *positionInput) error {
			if err := m.checkPath(in.Path, false); err != nil {
				return err
			}
			if in.Line < 1 {
				return tool.Failf("line must be one-based (1 or more).")
			}
			if strings.TrimSpace(in.Symbol) == "" && in.Column < 1 {
				return tool.Failf("give the symbol as written on line %d (or a one-based column).", in.Line)
			}
			return nil
		},
		Plan: func(in *positionInput) tool.Plan {
			return tool.Plan{Subjects: []string{in.Path}, Title: fmt.Sprintf("%s %s:%d", strings.TrimSpace(in.Symbol), in.Path, in.Line)}
		},
		Run: func(ctx context.Context, _ tool.Runtime, in *positionInput) (tool.Result, error) {
			return tool.TextOf(run(ctx, Position{Path: in.Path, Line: in.Line, Symbol: strings.TrimSpace(in.Symbol), Column: in.Column}))
		},
	})
}

type symbolsInput struct {
	Path  string `json:"path,omitempty" jsonschema:"a file to outline"`
	Query string `json:"query,omitempty" jsonschema:"a name to find across the workspace"`
}

func (m *Manager) symbolsTool() tool.Tool {
	return tool.New(tool.Def[symbolsInput]{
		Info: tool.Info{
			Name:        "symbols",
			Description: "With path: a file's symbols, nested, with their lines. With query: symbols of that name across the workspace. " + m.served(),
			Guidance:    "symbols: a file's outline, or symbols by name across the workspace, from the language server.",
			Set:         tool.SetNav, Effect: tool.Reads, Kind: protocol.KindSearch, Subject: tool.PathSubject,
		},
		Check: func(in *symbolsInput) error {
			if (in.Path == "") == (strings.TrimSpace(in.Query) == "") {
				return tool.Failf("give either path (a file's symbols) or query (a name across the workspace).")
			}
			return m.checkPath(in.Path, true)
		},
		Plan: func(in *symbolsInput) tool.Plan {
			if in.Path != "" {
				return tool.Plan{Subjects: []string{in.Path}, Title: in.Path}
			}
			return tool.Plan{Title: in.Query}
		},
		Run: func(ctx context.Context, _ tool.Runtime, in *symbolsInput) (tool.Result, error) {
			var out string
			var err error
			if in.Path != "" {
				out, err = m.DocumentSymbols(ctx, in.Path)
			} else {
				out, err = m.WorkspaceSymbols(ctx, strings.TrimSpace(in.Query))
			}
			return tool.Text(out), err
		},
	})
}

// checkPath keeps the tools inside the workspace: the servers are asked
// about its files only.
func (m *Manager) checkPath(p string, optional bool) error {
	if p == "" {
		if optional {
			return nil
		}
		return tool.Failf("path is required: a file in the workspace.")
	}
	abs := m.abs(p)
	if r, err := filepath.Rel(m.opts.Root, abs); err != nil || r == ".." || strings.HasPrefix(r, "../") {
		return tool.Failf("path %s is outside the workspace %s.", p, m.opts.Root)
	}
	return nil
}
