package bash

import (
	"bytes"
	"encoding/json"
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/shiro-neko/shiro/internal/workspace"
)

// Limits of check discovery.
const (
	maxDocChecks  = 10 // commands taken from instruction files
	maxChecks     = 5  // commands run
	maxDocBytes   = 256 * 1024
	maxCommandLen = 300
)

// check is one command run_checks runs, and where it was found.
type check struct {
	command string
	source  string
}

// instructionFiles are read, in order, for check commands.
func instructionFiles() []string { return []string{"AGENTS.md", "CLAUDE.md", ".shiro.md"} }

// checkRunners are the programs a documented command may start with.
func checkRunner(word string) bool {
	switch word {
	case "bun", "npm", "npx", "yarn", "pnpm", "cargo", "go", "python", "python3", "pytest", "ruby",
		"make", "bundle", "rake", "uv", "tox", "gradle", "./gradlew", "mvn", "deno", "just":
		return true
	}
	return false
}

var (
	codeSpan   = regexp.MustCompile("`([^`\n]+)`")
	scriptName = regexp.MustCompile(`^[\w:.\-]+$`)
)

// tokenBreak separates the words of a command or script name.
func tokenBreak(r rune) bool { return strings.ContainsRune(" \t:-_/.=,", r) }

// readProjectFile reads a file at the workspace root through the jail (a
// symlinked package.json cannot lead outside), if it is a regular file of
// at most maxDocBytes.
func readProjectFile(env *workspace.Env, name string) ([]byte, bool) {
	f, err := env.Open(name)
	if err != nil {
		return nil, false
	}
	defer func() { _ = f.Close() }()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxDocBytes {
		return nil, false
	}
	data, err := io.ReadAll(io.LimitReader(f, maxDocBytes+1))
	return data, err == nil && len(data) <= maxDocBytes
}

// isCheckCommand reports a command that tests, lints, type-checks or
// builds: one of its words is or contains such a word.
func isCheckCommand(cmd string) bool {
	for _, tok := range strings.FieldsFunc(strings.ToLower(cmd), tokenBreak) {
		if tok == "ci" || tok == "vet" || tok == "clippy" {
			return true
		}
		for _, k := range []string{"test", "check", "lint", "build"} {
			if strings.Contains(tok, k) {
				return true
			}
		}
	}
	return false
}

// docCommands pulls check commands out of a Markdown instruction file:
// inline code spans and the lines of fenced code blocks (a leading `$ `
// prompt dropped).
func docCommands(text string) []string {
	var cands []string
	inFence := false
	var prose strings.Builder
	for line := range strings.SplitSeq(text, "\n") {
		t := strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			continue
		}
		if inFence {
			cands = append(cands, t)
			continue
		}
		prose.WriteString(line)
		prose.WriteByte('\n')
	}
	for _, m := range codeSpan.FindAllStringSubmatch(prose.String(), -1) {
		cands = append(cands, m[1])
	}
	var out []string
	for _, c := range cands {
		c = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(c), "$ "))
		fields := strings.Fields(c)
		// A backtick inside a fenced line is command substitution, which a
		// check has no need of.
		if len(fields) < 2 || len(c) > maxCommandLen || strings.Contains(c, "`") || !checkRunner(fields[0]) || !isCheckCommand(c) {
			continue
		}
		out = append(out, strings.Join(fields, " "))
	}
	return out
}

// packageScriptOrder ranks the usual script names first.
func packageScriptOrder() []string { return []string{"test", "typecheck", "check", "lint", "build"} }

// skippedScript reports scripts that watch, serve or change files.
func skippedScript(name string) bool {
	for _, tok := range strings.FieldsFunc(strings.ToLower(name), tokenBreak) {
		switch tok {
		case "watch", "fix", "dev", "serve", "start", "format", "fmt", "publish", "release", "deploy", "update", "clean", "prepare":
			return true
		}
	}
	return false
}

// packageChecks reads the check scripts of package.json.
func packageChecks(env *workspace.Env) []check {
	data, ok := readProjectFile(env, "package.json")
	if !ok {
		return nil
	}
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal(data, &pkg) != nil {
		return nil
	}
	var names []string
	for name, body := range pkg.Scripts {
		// Names become part of a shell command line, so only plain ones are
		// taken; npm's placeholder test script only fails.
		if !scriptName.MatchString(name) || skippedScript(name) || !isCheckCommand(name) ||
			strings.Contains(body, "no test specified") {
			continue
		}
		names = append(names, name)
	}
	order := packageScriptOrder()
	rank := func(n string) int {
		if i := slices.Index(order, n); i >= 0 {
			return i
		}
		return len(order)
	}
	sort.Slice(names, func(i, j int) bool {
		ri, rj := rank(names[i]), rank(names[j])
		if ri != rj {
			return ri < rj
		}
		return names[i] < names[j]
	})
	runner := packageRunner(env)
	out := make([]check, len(names))
	for i, n := range names {
		out[i] = check{command: runner + " " + n, source: "package.json"}
	}
	return out
}

// packageRunner picks the package manager from the lock file.
func packageRunner(env *workspace.Env) string {
	has := func(name string) bool {
		_, err := env.Stat(name)
		return err == nil
	}
	switch {
	case has("bun.lock") || has("bun.lockb"):
		return "bun run"
	case has("pnpm-lock.yaml"):
		return "pnpm run"
	case has("yarn.lock"):
		return "yarn run"
	}
	return "npm run"
}

// toolchainChecks are the defaults of the toolchains the project uses.
func toolchainChecks(env *workspace.Env) []check {
	read := func(name string) ([]byte, bool) { return readProjectFile(env, name) }
	var out []check
	if _, ok := read("go.mod"); ok {
		out = append(out, check{"go vet ./...", "go.mod"}, check{"go test ./...", "go.mod"})
	}
	if _, ok := read("Cargo.toml"); ok {
		out = append(out, check{"cargo test", "Cargo.toml"})
	}
	for _, c := range []struct{ file, marker string }{
		{"pytest.ini", ""}, {"conftest.py", ""}, {"pyproject.toml", "[tool.pytest"},
		{"setup.cfg", "[tool:pytest]"}, {"tox.ini", "[pytest]"},
	} {
		if data, ok := read(c.file); ok && bytes.Contains(data, []byte(c.marker)) {
			out = append(out, check{"pytest -q", c.file})
			break
		}
	}
	return out
}

// discoverChecks finds the checks of the workspace: documented
// commands first, then package.json scripts, then toolchain defaults;
// duplicates dropped, at most maxChecks.
func discoverChecks(env *workspace.Env) []check {
	var all []check
	docs := 0
	for _, name := range instructionFiles() {
		data, ok := readProjectFile(env, name)
		if !ok {
			continue
		}
		for _, c := range docCommands(string(data)) {
			if docs == maxDocChecks {
				break
			}
			all = append(all, check{command: c, source: name})
			docs++
		}
	}
	all = append(all, packageChecks(env)...)
	all = append(all, toolchainChecks(env)...)
	var out []check
	seen := map[string]bool{}
	for _, c := range all {
		key := strings.Join(strings.Fields(c.command), " ")
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, c)
		if len(out) == maxChecks {
			break
		}
	}
	return out
}
