package lsp

import (
	"context"
	"strings"
	"testing"
)

// definition and references land on the fixture's real lines, in Go and
// in TypeScript.
func TestDefinitionAndReferencesInFixtures(t *testing.T) {
	cases := []struct {
		server, fixture, file, symbol string
		line                          int
		def                           string
		refs                          []string
	}{
		{"gopls", "go", "main.go", "Area", 10, "shapes/shapes.go:5:6:", []string{"main.go:10:", "main.go:11:", "shapes/shapes.go:5:"}},
		{"typescript", "ts", "main.ts", "area", 3, "shapes.ts:1:17:", []string{"main.ts:1:", "main.ts:3:", "main.ts:4:", "shapes.ts:1:"}},
	}
	for _, c := range cases {
		t.Run(c.server, func(t *testing.T) {
			root := fixture(t, c.fixture)
			m := needServer(t, c.server, root)
			ctx := context.Background()
			p := Position{Path: c.file, Line: c.line, Symbol: c.symbol}
			def, err := m.Definition(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(def, "\n"+c.def) {
				t.Fatalf("definition of %s is not at %s:\n%s", c.symbol, c.def, def)
			}
			refs, err := m.References(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range c.refs {
				if !strings.Contains(refs, "\n"+r) {
					t.Errorf("references miss %s:\n%s", r, refs)
				}
			}
			hover, err := m.Hover(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(hover, c.symbol) {
				t.Errorf("hover says nothing of %s:\n%s", c.symbol, hover)
			}
			syms, err := m.DocumentSymbols(ctx, c.file)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(syms, "main") && !strings.Contains(syms, "area") {
				t.Errorf("document symbols of %s:\n%s", c.file, syms)
			}
		})
	}
}

// A symbol that is not on the line named is a clear error, before any
// request.
func TestPositionNamesTheLineWhenTheSymbolIsMissing(t *testing.T) {
	root := fixture(t, "go")
	_, err := position(root+"/main.go", Position{Path: "main.go", Line: 10, Symbol: "Volume"})
	if err == nil || !strings.Contains(err.Error(), `"Volume" is not on line 10 of main.go`) {
		t.Fatalf("got %v", err)
	}
}
