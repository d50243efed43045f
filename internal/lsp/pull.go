package lsp

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"
)

// pulls reports whether the server can be asked for a file's diagnostics
// outright. typescript-language-server can: it passes tsserver's own
// synchronous requests through a command. Waiting for its pushed reports
// would not do, as it publishes nothing when a clean file stays clean, so
// every clean edit would wait out the whole deadline.
func (s *server) pulls() bool {
	return strings.HasPrefix(filepath.Base(s.spec.Path), "typescript-language-server")
}

// tsDiagnostic is one diagnostic of tsserver's protocol: one-based line
// and UTF-16 offset.
type tsDiagnostic struct {
	Start    struct{ Line, Offset uint32 } `json:"start"`
	Text     string                        `json:"text"`
	Code     int                           `json:"code"`
	Category string                        `json:"category"`
	Source   string                        `json:"source"`
}

// pull asks tsserver for the file's syntax and type errors, now.
func (s *server) pull(ctx context.Context, abs string) ([]protocol.Diagnostic, error) {
	var out []protocol.Diagnostic
	for _, req := range []string{"syntacticDiagnosticsSync", "semanticDiagnosticsSync"} {
		var resp struct {
			Success bool           `json:"success"`
			Message string         `json:"message"`
			Body    []tsDiagnostic `json:"body"`
		}
		_, err := s.rpc.Call(ctx, protocol.MethodWorkspaceExecuteCommand, protocol.ExecuteCommandParams{
			Command:   "typescript.tsserverRequest",
			Arguments: []any{req, map[string]any{"file": string(fileURI(abs))}},
		}, &resp)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", req, abs, err)
		}
		if !resp.Success {
			return nil, fmt.Errorf("%s %s: %s", req, abs, resp.Message)
		}
		for _, d := range resp.Body {
			pos := protocol.Position{Line: max(d.Start.Line, 1) - 1, Character: max(d.Start.Offset, 1) - 1}
			out = append(out, protocol.Diagnostic{
				Range: protocol.Range{Start: pos, End: pos}, Severity: tsSeverity(d.Category),
				Code: d.Code, Source: cmp.Or(d.Source, "typescript"), Message: d.Text,
			})
		}
	}
	return out, nil
}

func tsSeverity(category string) protocol.DiagnosticSeverity {
	switch category {
	case "error":
		return protocol.DiagnosticSeverityError
	case "warning":
		return protocol.DiagnosticSeverityWarning
	case "suggestion":
		return protocol.DiagnosticSeverityHint
	}
	return protocol.DiagnosticSeverityInformation
}
