package commands_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/commands"
	"github.com/shiro-neko/shiro/internal/hooks"
)

type hooksHost struct {
	*fakeHost
	runner *hooks.Runner
}

func (h hooksHost) Hooks() *hooks.Runner { return h.runner }

// A file in a hooks folder that is not a hook is reported by /hooks, not
// answered with "no hooks found".
func TestHooksReportsAStrayFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".shiro", "hooks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	stray := filepath.Join(dir, "no-force-push.sh")
	if err := os.WriteFile(stray, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	set, _ := hooks.Load(dir, "")
	h := hooksHost{&fakeHost{}, hooks.NewRunner(set, nil, hooks.Options{})}

	out, err := commands.New(h, conversationOf(h)).Run(t.Context(), "/hooks")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.Output, "no hooks found") {
		t.Errorf("a stray file was answered with %q", out.Output)
	}
	want := "problem: " + stray + ": not a hook folder"
	if !strings.Contains(out.Output, want) {
		t.Errorf("/hooks said:\n%s\nwant a line starting %q", out.Output, want)
	}
}

func TestHooksWithNothingThereSaysSo(t *testing.T) {
	set, _ := hooks.Load(filepath.Join(t.TempDir(), "none"), "")
	h := hooksHost{&fakeHost{}, hooks.NewRunner(set, nil, hooks.Options{})}
	out, err := commands.New(h, conversationOf(h)).Run(t.Context(), "/hooks list")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.Output, "no hooks found") {
		t.Errorf("/hooks list = %q", out.Output)
	}
}
