package main

import (
	"os/exec"
	"strings"
	"testing"
)

// uiStack are module paths whose packages do heavy work in their package
// initialisers (chroma parses every lexer and style it embeds, bluemonday
// and goldmark build tables and regular expressions): about 30 ms before
// main. Go runs the initialiser of every package a program links, so the
// only way shiro's headless runs, subcommands and --version skip them is
// not to link them: the terminal UI that needs them is in shiro-tui.
var uiStack = []string{
	"charm.land/glamour/",
	"github.com/alecthomas/chroma/",
	"github.com/yuin/goldmark",
	"github.com/microcosm-cc/bluemonday",
}

// deps lists the packages the program in dir links.
func deps(t *testing.T, dir string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", dir).Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	return strings.Fields(string(out))
}

func linksAny(pkgs, prefixes []string) []string {
	var hit []string
	for _, p := range pkgs {
		for _, prefix := range prefixes {
			if strings.HasPrefix(p, prefix) {
				hit = append(hit, p)
			}
		}
	}
	return hit
}

func TestShiroDoesNotLinkTheUIStack(t *testing.T) {
	if hit := linksAny(deps(t, "."), uiStack); len(hit) > 0 {
		t.Errorf("shiro links the UI's markdown stack, whose initialisers then run on every start: %q", hit)
	}
	// The list above names what the UI really uses: shiro-tui links it.
	if hit := linksAny(deps(t, "../shiro-tui"), uiStack); len(hit) == 0 {
		t.Errorf("shiro-tui links none of %q: the list is stale", uiStack)
	}
	if hit := linksAny(deps(t, "."), []string{"github.com/shiro-neko/shiro/internal/tui"}); len(hit) > 0 {
		t.Errorf("shiro links the terminal UI: %q", hit)
	}
}
