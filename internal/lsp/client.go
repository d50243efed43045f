package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"go.lsp.dev/protocol"
)

// handler is shiro's side of what a server asks or tells the client. It
// keeps diagnostics and answers the few requests servers depend on;
// everything else is acknowledged and dropped.
type handler struct {
	root  string
	store *store
}

var _ protocol.Client = handler{}

func (handler) Progress(context.Context, *protocol.ProgressParams) error { return nil }
func (handler) WorkDoneProgressCreate(context.Context, *protocol.WorkDoneProgressCreateParams) error {
	return nil
}
func (handler) LogMessage(context.Context, *protocol.LogMessageParams) error { return nil }
func (h handler) PublishDiagnostics(_ context.Context, p *protocol.PublishDiagnosticsParams) error {
	h.store.publish(p.URI, p.Diagnostics)
	return nil
}

// ShowMessage keeps the server's errors (its module would not load, its
// toolchain is missing): they explain an edit's silence, and the next
// edit's result carries them once.
func (h handler) ShowMessage(_ context.Context, p *protocol.ShowMessageParams) error {
	if p.Type == protocol.MessageTypeError {
		h.store.say(p.Message)
	}
	return nil
}
func (handler) ShowMessageRequest(context.Context, *protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
	return nil, nil
}
func (handler) Telemetry(context.Context, any) error                                   { return nil }
func (handler) RegisterCapability(context.Context, *protocol.RegistrationParams) error { return nil }
func (handler) UnregisterCapability(context.Context, *protocol.UnregistrationParams) error {
	return nil
}
func (handler) ApplyEdit(context.Context, *protocol.ApplyWorkspaceEditParams) (bool, error) {
	// shiro's files change only through its tools, which the gate judges.
	return false, nil
}

// Configuration answers an empty object for every item: the server's own
// defaults (and the user's initOptions) apply.
func (handler) Configuration(_ context.Context, p *protocol.ConfigurationParams) ([]any, error) {
	out := make([]any, len(p.Items))
	for i := range out {
		out[i] = map[string]any{}
	}
	return out, nil
}

func (h handler) WorkspaceFolders(context.Context) ([]protocol.WorkspaceFolder, error) {
	return []protocol.WorkspaceFolder{{URI: string(fileURI(h.root)), Name: filepath.Base(h.root)}}, nil
}

// capabilities are what shiro tells servers it understands: plain
// locations (no links), markdown hover, hierarchical symbols, versioned
// diagnostics, and a workspace it can be asked about.
func capabilities() protocol.ClientCapabilities {
	return protocol.ClientCapabilities{
		Workspace: &protocol.WorkspaceClientCapabilities{Configuration: true, WorkspaceFolders: true},
		TextDocument: &protocol.TextDocumentClientCapabilities{
			Synchronization:    &protocol.TextDocumentSyncClientCapabilities{},
			Hover:              &protocol.HoverTextDocumentClientCapabilities{ContentFormat: []protocol.MarkupKind{protocol.Markdown, protocol.PlainText}},
			DocumentSymbol:     &protocol.DocumentSymbolClientCapabilities{HierarchicalDocumentSymbolSupport: true},
			PublishDiagnostics: &protocol.PublishDiagnosticsClientCapabilities{VersionSupport: true},
		},
	}
}

// fileURI is the file:// URI of an absolute path.
func fileURI(path string) protocol.DocumentURI {
	return protocol.DocumentURI("file://" + filepath.ToSlash(path))
}

// uriPath is the path of a file:// URI ("" for another scheme).
func uriPath(u protocol.DocumentURI) string {
	s := string(u)
	const prefix = "file://"
	if len(s) < len(prefix) || s[:len(prefix)] != prefix {
		return ""
	}
	return filepath.FromSlash(unescape(s[len(prefix):]))
}

// unescape decodes %XX escapes, which servers use for spaces and the like.
func unescape(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			var b byte
			if _, err := fmt.Sscanf(s[i+1:i+3], "%02x", &b); err == nil {
				out = append(out, b)
				i += 2
				continue
			}
		}
		out = append(out, s[i])
	}
	return string(out)
}

// docs tracks the files a server has open and the text it was last sent.
type docs struct {
	mu    sync.Mutex
	files map[protocol.DocumentURI]*doc
}

type doc struct {
	version int32
	text    string
}

// syncFile brings the server's copy of path in line with the disk: opened
// the first time, a full change when the text differs, closed when the
// file is gone. It returns the report count to wait past and whether
// anything was sent.
func (s *server) syncFile(ctx context.Context, path string) (mark uint64, sent bool, err error) {
	u := fileURI(path)
	data, rerr := os.ReadFile(path)
	s.docs.mu.Lock()
	defer s.docs.mu.Unlock()
	d, open := s.docs.files[u]
	mark = s.store.mark(u)
	switch {
	case rerr != nil && open:
		delete(s.docs.files, u)
		s.store.forget(u)
		return mark, false, s.remote.DidClose(ctx, &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	case rerr != nil:
		return mark, false, nil
	case !open:
		s.docs.files[u] = &doc{version: 1, text: string(data)}
		return mark, true, s.remote.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
			URI: u, LanguageID: protocol.LanguageIdentifier(languageID(path)), Version: 1, Text: string(data),
		}})
	case d.text == string(data):
		return mark, false, nil
	}
	d.version++
	d.text = string(data)
	// go.lsp.dev's change event always carries a range, which makes a
	// change an insertion at 0:0; a whole-document change has none, so
	// the notification goes out with this one shape of our own.
	return mark, true, s.rpc.Notify(ctx, protocol.MethodTextDocumentDidChange, fullChange{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: d.version},
		ContentChanges: []wholeText{{Text: string(data)}},
	})
}

// fullChange is didChange's parameters with whole-document changes.
type fullChange struct {
	TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []wholeText                              `json:"contentChanges"`
}

type wholeText struct {
	Text string `json:"text"`
}

// isOpen reports whether the server has path open.
func (s *server) isOpen(path string) bool {
	s.docs.mu.Lock()
	defer s.docs.mu.Unlock()
	_, ok := s.docs.files[fileURI(path)]
	return ok
}

// initOptions decodes the configured initializationOptions.
func initOptions(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	return v
}
