package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// maxLocations caps the locations one answer lists.
const maxLocations = 50

// Position names a place in a file as the model can: a one-based line and
// the symbol written on it (or a one-based column).
type Position struct {
	Path   string
	Line   int
	Symbol string
	Column int
}

// ErrNoServer is a file no server answers for.
var ErrNoServer = errors.New("no language server answers for this file")

// open returns the running server for path with the file synced.
func (m *Manager) open(ctx context.Context, path string) (*server, string, error) {
	abs := m.abs(path)
	sl := m.slotFor(abs)
	if sl == nil {
		return nil, abs, fmt.Errorf("%s: %w (servers here: %s); use find_symbol, outline or grep instead", path, ErrNoServer, m.names())
	}
	srv, err := sl.get(ctx, m)
	if err != nil {
		return nil, abs, err
	}
	sl.touch(abs)
	if _, err := os.Stat(abs); err != nil {
		return nil, abs, fmt.Errorf("%s: %w", path, err)
	}
	bctx, stop := srv.bound(ctx)
	defer stop()
	sctx, cancel := context.WithTimeout(bctx, m.opts.DiagnosticsWait)
	defer cancel()
	mark, sent, err := srv.syncFile(sctx, abs)
	if err != nil {
		return nil, abs, fmt.Errorf("%s: sending %s to %s: %w", path, path, sl.spec.Name, err)
	}
	if sent {
		// A server answers about a file it has just been given before it
		// has loaded the project around it (typescript then resolves a
		// name to its import); its report on the file says it has.
		if srv.pulls() {
			_, _ = srv.pull(sctx, abs)
		} else {
			srv.store.wait(sctx, fileURI(abs), mark)
		}
	}
	return srv, abs, nil
}

// files lists the patterns of every server, for descriptions.
func (m *Manager) files() string {
	var f []string
	for _, s := range m.slots {
		f = append(f, s.spec.Files...)
	}
	return strings.Join(f, " ")
}

func (m *Manager) names() string {
	var n []string
	for _, s := range m.slots {
		n = append(n, s.spec.Name+" for "+strings.Join(s.spec.Files, " "))
	}
	if len(n) == 0 {
		return "none"
	}
	return strings.Join(n, "; ")
}

// position turns a Position into the protocol's: zero-based line and
// UTF-16 character, found from the symbol's first whole-word occurrence
// on the line when no column is given.
func position(abs string, p Position) (protocol.Position, error) {
	data, err := os.ReadFile(abs)
	if err != nil {
		return protocol.Position{}, err
	}
	lines := strings.Split(string(data), "\n")
	if p.Line < 1 || p.Line > len(lines) {
		return protocol.Position{}, fmt.Errorf("line %d is outside %s (%d lines)", p.Line, p.Path, len(lines))
	}
	text := lines[p.Line-1]
	off := -1
	switch {
	case p.Symbol != "":
		off = wordIndex(text, p.Symbol)
		if off < 0 {
			return protocol.Position{}, fmt.Errorf("%q is not on line %d of %s, which reads: %s", p.Symbol, p.Line, p.Path, strings.TrimSpace(text))
		}
	case p.Column >= 1:
		off = min(p.Column-1, len(text))
	default:
		return protocol.Position{}, errors.New("give the symbol on that line (or a column)")
	}
	return protocol.Position{Line: uint32(p.Line - 1), Character: uint32(len(utf16.Encode([]rune(text[:off]))))}, nil
}

// wordIndex is the byte offset of word in text where it stands as a whole
// identifier, or its first occurrence at all, or -1.
func wordIndex(text, word string) int {
	isIdent := func(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }
	for from := 0; ; {
		i := strings.Index(text[from:], word)
		if i < 0 {
			return strings.Index(text, word)
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(text[:i])
		after, _ := utf8.DecodeRuneInString(text[i+len(word):])
		if (i == 0 || !isIdent(before)) && (i+len(word) == len(text) || !isIdent(after)) {
			return i
		}
		from = i + len(word)
	}
}

func (m *Manager) positionParams(ctx context.Context, p Position) (*server, protocol.TextDocumentPositionParams, error) {
	srv, abs, err := m.open(ctx, p.Path)
	if err != nil {
		return nil, protocol.TextDocumentPositionParams{}, err
	}
	pos, err := position(abs, p)
	if err != nil {
		return nil, protocol.TextDocumentPositionParams{}, err
	}
	return srv, protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: fileURI(abs)}, Position: pos}, nil
}

// request runs one call with the request deadline, tied to the server's
// life.
func (m *Manager) request(ctx context.Context, srv *server, what string, call func(context.Context) error) error {
	ctx, stop := srv.bound(ctx)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, m.opts.RequestTimeout)
	defer cancel()
	if err := call(ctx); err != nil {
		if res := srv.exited(); res != nil {
			return fmt.Errorf("%s: %s exited (%s) during the request; the next call restarts it once", what, srv.spec.Name, res.Exit)
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("%s: %s did not answer within %s", what, srv.spec.Name, m.opts.RequestTimeout)
		}
		return fmt.Errorf("%s: %s: %w", what, srv.spec.Name, err)
	}
	return nil
}

// Definition lists where the symbol at p is defined.
func (m *Manager) Definition(ctx context.Context, p Position) (string, error) {
	srv, params, err := m.positionParams(ctx, p)
	if err != nil {
		return "", err
	}
	var locs []protocol.Location
	err = m.request(ctx, srv, "definition", func(ctx context.Context) (err error) {
		locs, err = srv.remote.Definition(ctx, &protocol.DefinitionParams{TextDocumentPositionParams: params})
		return err
	})
	if err != nil {
		return "", err
	}
	return m.locations(fmt.Sprintf("definition of %s", describe(p)), locs), nil
}

// References lists where the symbol at p is used, its declaration too.
func (m *Manager) References(ctx context.Context, p Position) (string, error) {
	srv, params, err := m.positionParams(ctx, p)
	if err != nil {
		return "", err
	}
	var locs []protocol.Location
	err = m.request(ctx, srv, "references", func(ctx context.Context) (err error) {
		locs, err = srv.remote.References(ctx, &protocol.ReferenceParams{TextDocumentPositionParams: params, Context: protocol.ReferenceContext{IncludeDeclaration: true}})
		return err
	})
	if err != nil {
		return "", err
	}
	return m.locations(fmt.Sprintf("references to %s", describe(p)), locs), nil
}

// Hover is what the server says of the symbol at p: its type and doc.
func (m *Manager) Hover(ctx context.Context, p Position) (string, error) {
	srv, params, err := m.positionParams(ctx, p)
	if err != nil {
		return "", err
	}
	var h *protocol.Hover
	err = m.request(ctx, srv, "hover", func(ctx context.Context) (err error) {
		h, err = srv.remote.Hover(ctx, &protocol.HoverParams{TextDocumentPositionParams: params})
		return err
	})
	if err != nil {
		return "", err
	}
	if h == nil || strings.TrimSpace(h.Contents.Value) == "" {
		return fmt.Sprintf("%s: the server has nothing to say about %s", srv.spec.Name, describe(p)), nil
	}
	return strings.TrimSpace(h.Contents.Value), nil
}

func describe(p Position) string {
	if p.Symbol != "" {
		return fmt.Sprintf("%s at %s:%d", p.Symbol, p.Path, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.Path, p.Line, p.Column)
}

// locations lists locations as path:line:col with the line's text.
func (m *Manager) locations(heading string, locs []protocol.Location) string {
	if len(locs) == 0 {
		return heading + ": none found"
	}
	slices.SortStableFunc(locs, func(a, b protocol.Location) int {
		if c := strings.Compare(string(a.URI), string(b.URI)); c != 0 {
			return c
		}
		return int(a.Range.Start.Line) - int(b.Range.Start.Line)
	})
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%d):", heading, len(locs))
	cache := map[string][]string{}
	for i, l := range locs {
		if i == maxLocations {
			fmt.Fprintf(&b, "\n(and %d more)", len(locs)-maxLocations)
			break
		}
		path := uriPath(l.URI)
		line := int(l.Range.Start.Line)
		fmt.Fprintf(&b, "\n%s:%d:%d", m.rel(path), line+1, l.Range.Start.Character+1)
		if text := lineOf(cache, path, line); text != "" {
			b.WriteString(": " + text)
		}
	}
	return b.String()
}

func lineOf(cache map[string][]string, path string, line int) string {
	lines, ok := cache[path]
	if !ok {
		data, _ := os.ReadFile(path)
		lines = strings.Split(string(data), "\n")
		cache[path] = lines
	}
	if line < 0 || line >= len(lines) {
		return ""
	}
	t := strings.TrimSpace(lines[line])
	if len(t) > 160 {
		t = t[:160] + "…"
	}
	return t
}

// DocumentSymbols outlines a file: its symbols, nested, with lines.
func (m *Manager) DocumentSymbols(ctx context.Context, path string) (string, error) {
	srv, abs, err := m.open(ctx, path)
	if err != nil {
		return "", err
	}
	var raw []any
	err = m.request(ctx, srv, "symbols", func(ctx context.Context) (err error) {
		raw, err = srv.remote.DocumentSymbol(ctx, &protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: fileURI(abs)}})
		return err
	})
	if err != nil {
		return "", err
	}
	// The answer is DocumentSymbol[] or SymbolInformation[]: both decode
	// into the one shape below.
	var syms []symbolNode
	if data, err := json.Marshal(raw); err == nil {
		_ = json.Unmarshal(data, &syms)
	}
	if len(syms) == 0 {
		return path + ": no symbols", nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "symbols of %s:", path)
	var walk func([]symbolNode, int)
	walk = func(list []symbolNode, depth int) {
		for _, s := range list {
			line := s.Range.Start.Line
			if s.Location != nil {
				line = s.Location.Range.Start.Line
			}
			fmt.Fprintf(&b, "\n%s%s %s (line %d)", strings.Repeat("  ", depth), s.Kind, s.Name, line+1)
			if s.Detail != "" {
				b.WriteString(" " + s.Detail)
			}
			walk(s.Children, depth+1)
		}
	}
	walk(syms, 0)
	return b.String(), nil
}

// symbolNode is a DocumentSymbol or a SymbolInformation.
type symbolNode struct {
	Name     string              `json:"name"`
	Detail   string              `json:"detail"`
	Kind     protocol.SymbolKind `json:"kind"`
	Range    protocol.Range      `json:"range"`
	Location *protocol.Location  `json:"location"`
	Children []symbolNode        `json:"children"`
}

// WorkspaceSymbols finds symbols by name across the workspace, asking
// every server that runs (starting each the first time).
func (m *Manager) WorkspaceSymbols(ctx context.Context, query string) (string, error) {
	var lines []string
	var errs []string
	for _, sl := range m.slots {
		srv, err := sl.get(ctx, m)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		var syms []protocol.SymbolInformation
		err = m.request(ctx, srv, "symbols", func(ctx context.Context) (err error) {
			syms, err = srv.remote.Symbols(ctx, &protocol.WorkspaceSymbolParams{Query: query})
			return err
		})
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		for _, s := range syms {
			path := uriPath(s.Location.URI)
			if path == "" {
				continue
			}
			lines = append(lines, fmt.Sprintf("%s:%d: %s %s", m.rel(path), s.Location.Range.Start.Line+1, s.Kind, s.Name))
		}
	}
	if len(lines) == 0 && len(errs) > 0 {
		return "", errors.New(strings.Join(errs, "; "))
	}
	out := fmt.Sprintf("symbols matching %q (%d):", query, len(lines))
	for i, l := range lines {
		if i == maxLocations {
			out += fmt.Sprintf("\n(and %d more; narrow the query)", len(lines)-maxLocations)
			break
		}
		out += "\n" + l
	}
	for _, e := range errs {
		out += "\nNote: " + e
	}
	return out, nil
}
