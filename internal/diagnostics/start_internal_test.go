package diagnostics

import (
	"testing"

	"github.com/shiro-neko/shiro/internal/workspace"
)

// Whoever decides to start the check (a re-run after a turn, a /diagnostics
// command) may find one already started by the other: start itself must
// refuse a second, or the first would run on out of Stop's reach.
func TestStartNeverLaunchesASecondCheck(t *testing.T) {
	env, err := workspace.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{env: env, command: "echo should-not-run"}
	running := &run{cancel: func() {}, done: make(chan struct{})}
	r.running = running
	if err := r.start(); err != nil {
		t.Fatal(err)
	}
	if r.running != running {
		t.Fatal("start launched a second check beside the one running")
	}
}
