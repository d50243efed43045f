package bash

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

func TestDocCommands(t *testing.T) {
	doc := "# Agents\n\nRun `go test ./...` and `npm run lint` before a commit.\n" +
		"Do not run `rm -rf /` or `go generate` or `npm install`.\n" +
		"```sh\n$ make check\ncargo clippy --all\necho test\n```\n" +
		"`pytest -q tests/` is slow. `make`\n"
	got := docCommands(doc)
	want := []string{"make check", "cargo clippy --all", "go test ./...", "npm run lint", "pytest -q tests/"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestDiscoverChecks(t *testing.T) {
	t.Parallel()
	pkg := `{"scripts": {"build": "tsc", "lint:fix": "eslint --fix", "test": "vitest run", "test:watch": "vitest",
		"dev": "vite", "check:types": "tsc --noEmit", "typecheck": "tsc -p .", "a-lint": "x", "bad name; rm": "x"}}`
	env := wstest.Isolated(t, map[string]string{"package.json": pkg, "bun.lockb": ""})
	got := discoverChecks(env)
	want := []check{
		{"bun run test", "package.json"}, {"bun run typecheck", "package.json"}, {"bun run build", "package.json"},
		{"bun run a-lint", "package.json"}, {"bun run check:types", "package.json"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("package.json with bun:\n got %v\nwant %v", got, want)
	}

	env = wstest.Isolated(t, map[string]string{
		"AGENTS.md":      "Use `go test ./...` and `go test -race ./internal/...`.",
		"CLAUDE.md":      "`go test ./...`",
		"package.json":   `{"scripts": {"test": "echo \"Error: no test specified\" && exit 1", "lint": "eslint ."}}`,
		"go.mod":         "module x\n",
		"pyproject.toml": "[tool.pytest.ini_options]\n",
	})
	got = discoverChecks(env)
	want = []check{
		{"go test ./...", "AGENTS.md"}, {"go test -race ./internal/...", "AGENTS.md"},
		{"npm run lint", "package.json"}, {"go vet ./...", "go.mod"}, {"pytest -q", "pyproject.toml"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("mixed:\n got %v\nwant %v", got, want)
	}

	env = wstest.Isolated(t, map[string]string{"Cargo.toml": "[package]\n", "yarn.lock": "", "package.json": `{"scripts":{"test":"jest"}}`})
	got = discoverChecks(env)
	want = []check{{"yarn run test", "package.json"}, {"cargo test", "Cargo.toml"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cargo + yarn:\n got %v\nwant %v", got, want)
	}

	var many strings.Builder
	for i := range 15 {
		fmt.Fprintf(&many, "`make test%d`\n", i)
	}
	env = wstest.Isolated(t, map[string]string{"AGENTS.md": many.String(), "CLAUDE.md": "`make lint`"})
	if got := discoverChecks(env); len(got) != maxChecks || got[4].command != "make test4" {
		t.Errorf("cap: %v", got)
	}
	if got := docCommands(many.String()); len(got) != 15 {
		t.Errorf("docCommands found %d", len(got))
	}

	// A package.json that is a symlink out of the workspace is not read.
	outside := filepath.Join(t.TempDir(), "package.json")
	if err := os.WriteFile(outside, []byte(`{"scripts":{"test":"x"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	env = wstest.Isolated(t, nil)
	if err := os.Symlink(outside, filepath.Join(env.Root, "package.json")); err != nil {
		t.Fatal(err)
	}
	if got := discoverChecks(env); len(got) != 0 {
		t.Errorf("read through a symlink: %v", got)
	}

	// Nor is an instruction file over the size limit.
	env = wstest.Isolated(t, map[string]string{"AGENTS.md": "`make test`\n" + strings.Repeat("x", maxDocBytes)})
	if got := discoverChecks(env); len(got) != 0 {
		t.Errorf("read an instruction file over %d bytes: %v", maxDocBytes, got)
	}
}

const makefile = "test:\n\t@echo all good\n\nlint:\n\t@for i in $$(seq 1 50); do echo problem $$i; done; exit 3\n"

func TestRunChecks(t *testing.T) {
	t.Parallel()
	env := wstest.Isolated(t, map[string]string{
		"AGENTS.md": "Run `make test` and `make lint`.",
		"Makefile":  makefile,
	})
	var mu sync.Mutex
	var streamed strings.Builder
	tl := Checks(env)[0]
	raw := json.RawMessage(`{}`)
	got, err := invoke(context.Background(), tl, raw, func(s string) {
		mu.Lock()
		streamed.WriteString(s)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	want.WriteString("checks: FAILED (1 of 2)\nPASS  make test  (AGENTS.md)\nFAIL  make lint  (AGENTS.md)  exit 2\n\n--- make lint ---\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&want, "problem %d\n", i)
	}
	// make's own complaint comes after the 50 lines: 11 more in all.
	want.WriteString("[... 11 more lines]")
	if got != want.String() {
		t.Errorf("report:\n%s\nwant:\n%s", got, want.String())
	}
	if s := streamed.String(); !strings.HasPrefix(s, "$ make test\nall good\n$ make lint\nproblem 1\n") {
		t.Errorf("streamed: %q", s)
	}

	got, err = invoke(context.Background(), tl, json.RawMessage(`{"target":"TEST"}`), nil)
	if err != nil || got != "checks: all passed (1)\nPASS  make test  (AGENTS.md)" {
		t.Errorf("target: %q, %v", got, err)
	}
	for in, want := range map[string]string{
		`{"target":"nothing"}`: `No check matches "nothing"; the checks found are: make test; make lint.`,
		`{"timeout":4999}`:     "invalid arguments: timeout must be at least 5000; got 4999",
		`{"timeout":600001}`:   "invalid arguments: timeout must be at most 600000; got 600001",
	} {
		if _, err := invoke(context.Background(), tl, json.RawMessage(in), nil); err == nil || err.Error() != want {
			t.Errorf("%s: %v", in, err)
		}
	}
	empty := wstest.Isolated(t, nil)
	if _, err := invoke(context.Background(), Checks(empty)[0], raw, nil); err == nil || !strings.HasPrefix(err.Error(), "No checks found:") {
		t.Errorf("no checks: %v", err)
	}
	if _, err := invoke(context.Background(), Checks(nil)[0], raw, nil); err == nil || !strings.Contains(err.Error(), "no workspace") {
		t.Errorf("no workspace: %v", err)
	}
}

// What the gate was shown is what runs, even when the instruction file
// changes in between.
func TestRunChecksRunsWhatTheGateSaw(t *testing.T) {
	t.Parallel()
	env := wstest.Isolated(t, map[string]string{"AGENTS.md": "`make test`", "Makefile": makefile})
	tl := Checks(env)[0]
	input := json.RawMessage(`{"timeout":60000}`)
	p, err := tl.Prepare(input)
	if err != nil {
		t.Fatal(err)
	}
	plan := p.Plan()
	if !reflect.DeepEqual(plan.Commands, []string{"make test"}) || !reflect.DeepEqual(plan.Subjects, plan.Commands) {
		t.Fatalf("plan %+v", plan)
	}
	wstest.Write(t, env.Root, map[string]string{"AGENTS.md": "`make test` then `make lint`"})
	res, err := p.Run(context.Background(), tool.Runtime{})
	if err != nil || res.Output != "checks: all passed (1)\nPASS  make test  (AGENTS.md)" {
		t.Errorf("run after change: %q, %v", res.Output, err)
	}
	// The plan belongs to the call: the next call discovers afresh.
	got, _ := invoke(context.Background(), tl, input, nil)
	if !strings.HasPrefix(got, "checks: FAILED (1 of 2)") {
		t.Errorf("second run: %q", got)
	}
	p, err = Checks(nil)[0].Prepare(input)
	if err != nil {
		t.Fatal(err)
	}
	if p.Plan().Commands != nil {
		t.Error("commands without a workspace")
	}
}

// A call for which the gate saw no checks runs none, even if checks
// appear before it runs: the old tool discovered again at run time and
// ran commands no one had judged.
func TestRunChecksRunsNothingTheGateDidNotSee(t *testing.T) {
	t.Parallel()
	env := wstest.Isolated(t, nil)
	p, err := Checks(env)[0].Prepare(json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if plan := p.Plan(); plan.Commands != nil || plan.Subjects != nil {
		t.Fatalf("plan of a workspace without checks: %+v", plan)
	}
	wstest.Write(t, env.Root, map[string]string{"AGENTS.md": "`make test`", "Makefile": "test:\n\t@touch ran\n"})
	if _, err := p.Run(context.Background(), tool.Runtime{}); err == nil || !strings.HasPrefix(err.Error(), "No checks found:") {
		t.Errorf("run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(env.Root, "ran")); err == nil {
		t.Error("a check the gate never saw ran")
	}
}
