package plugin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
)

// TestSchemas holds the built-in plugins' tool schemas to
// testdata/schemas.golden.json (rewrite it with -update and review the
// diff).
func TestSchemas(t *testing.T) {
	tooltest.SchemasGolden(t, plugin.NewHost(plugin.Time(time.Now)).Tools(), 0)
}

func TestTimeAddsAnAutoApprovedTool(t *testing.T) {
	zone := time.FixedZone("CET", 3600)
	now := time.Date(2026, 3, 1, 10, 30, 0, 0, zone)
	host := plugin.NewHost(plugin.Time(func() time.Time { return now }))
	ts := host.Tools()
	if len(ts) != 1 || ts[0].Info().Name != "current_time" {
		t.Fatalf("tools %v", ts)
	}
	tl := ts[0]
	if !host.AutoApproved("current_time") {
		t.Fatal("current_time is not auto-approved")
	}
	i := tl.Info()
	if i.Set != tool.SetNone || i.Effect != tool.Reads || i.Kind != protocol.KindOther || i.Subject != tool.NoSubject || i.Interactive {
		t.Fatalf("info %+v", i)
	}
	if i.Description != "The current date and time: ISO 8601 in UTC, then the local time with its zone." ||
		i.Guidance != "current_time: the date and time now; call it rather than guessing the date." {
		t.Fatalf("description %q guidance %q", i.Description, i.Guidance)
	}
	for _, in := range []string{`{}`, ``} {
		p, err := tl.Prepare(json.RawMessage(in))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(p.Plan(), tool.Plan{}) {
			t.Fatalf("plan %+v", p.Plan())
		}
		got, err := p.Run(t.Context(), tool.Runtime{})
		if err != nil {
			t.Fatal(err)
		}
		if want := "2026-03-01T09:30:00.000Z (local: Sun, 01 Mar 2026 10:30:00 CET +0100)"; got.Output != want || got.Diff != nil {
			t.Fatalf("got %+v, want %q", got, want)
		}
	}
	if _, err := tl.Prepare(json.RawMessage(`{"zone":"UTC"}`)); err == nil || !strings.Contains(err.Error(), `unexpected additional properties ["zone"]`) {
		t.Fatalf("an argument was accepted: %v", err)
	}
}

func TestBellRingsAfterEachTurn(t *testing.T) {
	var out bytes.Buffer
	host := plugin.NewHost(plugin.Bell(&out))
	for range 2 {
		if errs := host.AfterTurn(context.Background(), tool.TurnSummary{}); len(errs) != 0 {
			t.Fatal(errs)
		}
	}
	if out.String() != "\a\a" {
		t.Fatalf("wrote %q", out.String())
	}
	if plugin.Bell(nil).AfterTurn(context.Background(), tool.TurnSummary{}) != nil {
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
	host := plugin.NewHost(plugin.Format(direct))
	if errs := host.AfterTurn(context.Background(), tool.TurnSummary{Cwd: dir, FilesWritten: []string{"a.go", "notes.md"}}); len(errs) != 0 {
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
	errs := host.AfterTurn(context.Background(), tool.TurnSummary{Cwd: dir, FilesWritten: []string{"bad.go"}})
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
	if err := p.AfterTurn(context.Background(), tool.TurnSummary{Cwd: dir, FilesWritten: []string{"m.go", "src/lib.rs", filepath.Join(dir, "web.ts")}}); err != nil {
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
	if err := p.AfterTurn(context.Background(), tool.TurnSummary{Cwd: dir}); err != nil || len(runs) != 0 {
		t.Fatalf("ran %v (%v) after a turn that wrote nothing", runs, err)
	}
	// A missing formatter is reported, not ignored.
	missing := plugin.Format(func(context.Context, string, ...string) ([]byte, error) { return nil, exec.ErrNotFound })
	err := missing.AfterTurn(context.Background(), tool.TurnSummary{Cwd: dir, FilesWritten: []string{"m.go"}})
	if err == nil || !strings.Contains(err.Error(), "gofmt is not installed") {
		t.Fatalf("error %v", err)
	}
}

// direct runs a program as a session's runner does, through proc, but
// with no sandbox and shiro's own environment: for tests of what a plugin
// decides, not of its containment (contained_linux_test.go).
func direct(ctx context.Context, dir string, argv ...string) ([]byte, error) {
	return plugin.Contained(nil, os.Environ)(ctx, dir, argv...)
}
