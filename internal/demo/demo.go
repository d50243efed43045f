// Package demo runs `shiro demo`: a real session, with no API key and no
// network, on a scratch git repository holding a small Go program whose
// test fails. The model's side comes from an embedded cassette; everything
// else — the gate, the guard, the tools, the task list — is the real thing.
package demo

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/shiro-neko/shiro/internal/llm/replay"
)

//go:embed cassette.jsonl
var cassette []byte

// Cassette returns the recorded model side of the demo.
func Cassette() ([]replay.Response, error) {
	return replay.Parse("demo cassette", bytes.NewReader(cassette))
}

// Prompt is what the demo asks.
const Prompt = "The test in this repository fails. Find the bug, fix it, make sure the tests pass, and clean up the stale build output."

func files() map[string]string {
	return map[string]string{
		"go.mod": "module example.com/stats\n\ngo 1.21\n",
		"stats.go": `// Package stats has small statistics helpers.
package stats

// Mean returns the arithmetic mean of xs, or 0 when xs is empty.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sum := 0.0
	for i := 1; i < len(xs); i++ {
		sum += xs[i]
	}
	return sum / float64(len(xs))
}
`,
		"stats_test.go": `package stats

import "testing"

func TestMean(t *testing.T) {
	if got := Mean([]float64{2, 4, 6}); got != 4 {
		t.Fatalf("Mean(2, 4, 6) = %v, want 4", got)
	}
	if got := Mean(nil); got != 0 {
		t.Fatalf("Mean(nil) = %v, want 0", got)
	}
}
`,
		"README.md":       "# stats\n\nSmall statistics helpers. Run the tests with `go test ./...`.\n",
		".gitignore":      "build/\n",
		"build/stats.bin": "stale build output\n",
	}
}

// MakeRepo writes the scratch project into dir and commits it, so the
// session works in a real git repository.
func MakeRepo(ctx context.Context, dir string) error {
	for name, body := range files() {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return err
		}
	}
	if _, err := exec.LookPath("git"); err != nil {
		return nil // the session works without git; only the history is missing
	}
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "-A"},
		{"-c", "user.name=shiro demo", "-c", "user.email=demo@shiro.invalid", "commit", "-q", "-m", "stats: first version"},
	} {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %v\n%s", args, err, out)
		}
	}
	return nil
}

// Intro is printed before the session.
func Intro(w io.Writer, dir string) {
	fmt.Fprintf(w, "shiro demo — a real session on a scratch repository, answered from a recorded model (no key, no network).\n")
	fmt.Fprintf(w, "workspace: %s\n", dir)
	fmt.Fprintf(w, "approvals are granted automatically here, as with --yolo; the guard and the other safety layers still apply.\n\n")
	fmt.Fprintf(w, "> %s\n\n", Prompt)
}
