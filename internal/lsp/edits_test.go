package lsp

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// An edit that breaks a TypeScript file comes back with the error at its
// place; the edit that fixes it says nothing.
func TestTypeScriptEditReportsNewTypeError(t *testing.T) {
	root := fixture(t, "ts")
	m := needServer(t, "typescript", root)
	broken := "export function area(w: number, h: number): number {\n  const label: number = \"wide\";\n  return w * h + label;\n}\n"
	got := change(t, m, root, "shapes.ts", broken)
	if !strings.Contains(got, "shapes.ts:2:9:") || !strings.Contains(got, "not assignable to type 'number'") {
		t.Fatalf("the edit's report does not name the type error at shapes.ts:2:9:\n%s", got)
	}
	fixed := "export function area(w: number, h: number): number {\n  const label: number = 1;\n  return w * h + label;\n}\n"
	if got := change(t, m, root, "shapes.ts", fixed); got != "" {
		t.Fatalf("an edit that introduces no error reported:\n%s", got)
	}
}

// The same for Go through gopls.
func TestGoEditReportsNewTypeError(t *testing.T) {
	root := fixture(t, "go")
	m := needServer(t, "gopls", root)
	broken := "// Package shapes is a small fixture for the language-server tests.\npackage shapes\n\n// Area is the area of a rectangle.\nfunc Area(w, h int) int {\n\tvar label int = \"wide\"\n\treturn w * h * label\n}\n"
	got := change(t, m, root, "shapes/shapes.go", broken)
	if !strings.Contains(got, "shapes/shapes.go:6:18:") || !strings.Contains(got, "cannot use \"wide\"") {
		t.Fatalf("the edit's report does not name the type error at shapes/shapes.go:6:18:\n%s", got)
	}
	if got := change(t, m, root, "main.go", "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/fixture/shapes\"\n)\n\nfunc main() {\n\tfmt.Println(shapes.Area(2, 3))\n}\n"); got != "" {
		t.Fatalf("an edit that introduces no error reported:\n%s", got)
	}
}

// A server's error message (gopls cannot find the go command, say) is
// passed on once, in the next result, so that an edit's silence is
// explained.
func TestServerErrorMessagesArePassedOnOnce(t *testing.T) {
	st := newStore()
	h := handler{store: st}
	sl := &slot{spec: Available{Spec: Spec{Name: "gopls"}}, srv: &server{store: st}, files: map[string]bool{}}
	_ = h.ShowMessage(t.Context(), &protocol.ShowMessageParams{Type: protocol.MessageTypeInfo, Message: "loading"})
	_ = h.ShowMessage(t.Context(), &protocol.ShowMessageParams{Type: protocol.MessageTypeError, Message: "err: exec: \"go\": executable file not found in $PATH"})
	if got := sl.takeNotice(); got != "gopls says: err: exec: \"go\": executable file not found in $PATH" {
		t.Fatalf("first notice = %q", got)
	}
	if got := sl.takeNotice(); got != "" {
		t.Fatalf("the message was passed on twice: %q", got)
	}
}
