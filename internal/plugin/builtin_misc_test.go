package plugin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/tools"
)

func TestTimeAddsAnAutoApprovedTool(t *testing.T) {
	zone := time.FixedZone("CET", 3600)
	now := time.Date(2026, 3, 1, 10, 30, 0, 0, zone)
	host := plugin.NewHost(plugin.Time(func() time.Time { return now }))
	ts := host.Tools()
	if len(ts) != 1 || ts[0].Spec().Name != "current_time" {
		t.Fatalf("tools %v", ts)
	}
	tool := ts[0]
	if !host.AutoApproved("current_time") {
		t.Fatal("current_time is not auto-approved")
	}
	if m := tool.Meta(); m.Set != tools.SetNone || m.Mutating || m.Guidance == "" {
		t.Fatalf("meta %+v", m)
	}
	var schema map[string]any
	if err := json.Unmarshal(tool.Spec().Schema, &schema); err != nil || schema["type"] != "object" {
		t.Fatalf("schema %s: %v", tool.Spec().Schema, err)
	}
	got, err := tool.Run(context.Background(), tools.Call{Input: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if want := "2026-03-01T09:30:00.000Z (local: Sun, 01 Mar 2026 10:30:00 CET +0100)"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestBellRingsAfterEachTurn(t *testing.T) {
	var out bytes.Buffer
	host := plugin.NewHost(plugin.Bell(&out))
	for range 2 {
		if errs := host.AfterTurn(context.Background(), plugin.Turn{}); len(errs) != 0 {
			t.Fatal(errs)
		}
	}
	if out.String() != "\a\a" {
		t.Fatalf("wrote %q", out.String())
	}
	if plugin.Bell(nil).AfterTurn(context.Background(), plugin.Turn{}) != nil {
		t.Fatal("a bell without a writer failed")
	}
}

// TestFormatRunsGofmtOnWrittenFiles runs the real gofmt and checks the
// bytes on disk.
func TestFormatRunsGofmtOnWrittenFiles(t *testing.T) {
	if _, err := exec.LookPath("gofmt"); err != nil {
		t.Skip("gofmt is not installed")
	}
	dir := t.TempDir()
	ugly := "package x\nfunc  F( ) {return}\n"
	must(t, os.WriteFile(filepath.Join(dir, "a.go"), []byte(ugly), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "untouched.go"), []byte(ugly), 0o644))
	host := plugin.NewHost(plugin.Format(plugin.ExecRunner))
	if errs := host.AfterTurn(context.Background(), plugin.Turn{Cwd: dir, FilesWritten: []string{"a.go", "notes.md"}}); len(errs) != 0 {
		t.Fatal(errs)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "a.go"))
	if want := "package x\n\nfunc F() { return }\n"; string(got) != want {
		t.Fatalf("a.go is %q, want %q", got, want)
	}
	if untouched, _ := os.ReadFile(filepath.Join(dir, "untouched.go")); string(untouched) != ugly {
		t.Fatal("a file the turn did not write was formatted")
	}
	// A file gofmt cannot parse becomes the plugin's error, with gofmt's words.
	must(t, os.WriteFile(filepath.Join(dir, "bad.go"), []byte("package x\nfunc {"), 0o644))
	errs := host.AfterTurn(context.Background(), plugin.Turn{Cwd: dir, FilesWritten: []string{"bad.go"}})
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "plugin format") || !strings.Contains(errs[0].Error(), "gofmt") {
		t.Fatalf("errors %v", errs)
	}
}

func TestFormatChoosesFormatters(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "Cargo.toml"), []byte("[package]\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"scripts":{"format":"prettier -w ."}}`), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "pnpm-lock.yaml"), nil, 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "m.go"), []byte("package m\n"), 0o644))
	var runs [][]string
	var deadlines []time.Duration
	run := func(ctx context.Context, d string, argv ...string) ([]byte, error) {
		if d != dir {
			t.Errorf("ran in %s", d)
		}
		dl, ok := ctx.Deadline()
		if !ok {
			t.Error("formatter ran without a deadline")
		}
		deadlines = append(deadlines, time.Until(dl))
		runs = append(runs, argv)
		return nil, nil
	}
	p := plugin.Format(run)
	if err := p.AfterTurn(context.Background(), plugin.Turn{Cwd: dir, FilesWritten: []string{"m.go", "src/lib.rs", filepath.Join(dir, "web.ts")}}); err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"gofmt", "-w", filepath.Join(dir, "m.go")}, {"cargo", "fmt"}, {"pnpm", "run", "format"}}
	if !slices.EqualFunc(runs, want, slices.Equal) {
		t.Fatalf("ran %v, want %v", runs, want)
	}
	for _, d := range deadlines {
		if d > 60*time.Second || d < 50*time.Second {
			t.Fatalf("deadline %v, want 60s", d)
		}
	}
	// Nothing written, nothing run.
	runs = nil
	if err := p.AfterTurn(context.Background(), plugin.Turn{Cwd: dir}); err != nil || len(runs) != 0 {
		t.Fatalf("ran %v (%v) after a turn that wrote nothing", runs, err)
	}
	// A missing formatter is reported, not ignored.
	missing := plugin.Format(func(context.Context, string, ...string) ([]byte, error) { return nil, exec.ErrNotFound })
	err := missing.AfterTurn(context.Background(), plugin.Turn{Cwd: dir, FilesWritten: []string{"m.go"}})
	if err == nil || !strings.Contains(err.Error(), "gofmt is not installed") {
		t.Fatalf("error %v", err)
	}
}
