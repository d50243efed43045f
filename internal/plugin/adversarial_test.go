package plugin_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/shellguard"
)

// adversarialCase is one line of testdata/adversarial.jsonl: an attack
// written against the guard's source, or a benign line that must pass,
// and the layer that must judge it:
//
//   - chain: the default plugins (guard, secrets, protect…) must block it
//     ("block") or let it through ("pass");
//   - rules: the bash permission rules of adversarialRules must not allow
//     it ("not-allow"), must deny it ("deny") or must allow it ("allow");
//   - read: the default rules for read_file, judging the path and what it
//     resolves to, must deny it or allow it.
type adversarialCase struct {
	ID     int    `json:"id"`
	Class  string `json:"class"`
	Layer  string `json:"layer"`
	Expect string `json:"expect"`
	Cmd    string `json:"cmd,omitempty"`
	Path   string `json:"path,omitempty"`
}

// adversarialRules are the rules the "rules" cases run against: a person
// who allows git, make, sudo, find and ls, and denies rm and git reset.
const adversarialRules = `{"bash": {"*": "ask", "git *": "allow", "make *": "allow", "sudo *": "allow",
	"find *": "allow", "ls *": "allow", "rm *": "deny", "git reset *": "deny"}}`

// Measured on this set with the code of the commit before this change
// (same fixture, same test): 45 of the 269 attacks refused, and 44 of the
// 57 benign lines passing (the false positives: SQL words in literals and
// comments, redis-cli SET note flushall, git push --dry-run --force,
// chmod a=rw,o-w, reading .env.sample). Now every line is judged as
// labelled, which this test requires.
func TestAdversarialSet(t *testing.T) {
	fx := newAdversarialFixture(t)
	cases := loadCases(t, "adversarial.jsonl")
	rules, err := permission.Parse(json.RawMessage(adversarialRules))
	if err != nil {
		t.Fatal(err)
	}
	enabled, unknown := plugin.Resolve(config.DefaultPlugins(), plugin.BuiltinDeps{StateDir: fx.state})
	if len(unknown) > 0 {
		t.Fatalf("default plugins %v do not resolve", unknown)
	}
	host := plugin.NewHost(enabled...)
	policy := readPolicy(fx.ws)

	type tally struct{ attacks, refused, benign, passed int }
	byClass := map[string]*tally{}
	var failures []string
	for _, c := range cases {
		got := fx.judge(c, host, rules, policy)
		ok := got == c.Expect || c.Expect == "not-allow" && (got == "ask" || got == "deny")
		tl := byClass[c.Class]
		if tl == nil {
			tl = &tally{}
			byClass[c.Class] = tl
		}
		if c.Class == "benign" {
			tl.benign++
			if ok {
				tl.passed++
			}
		} else {
			tl.attacks++
			if ok {
				tl.refused++
			}
		}
		if !ok {
			failures = append(failures, fmt.Sprintf("#%d %s/%s: want %s, got %s: %s%s", c.ID, c.Class, c.Layer, c.Expect, got, c.Cmd, c.Path))
		}
	}
	var total tally
	classes := make([]string, 0, len(byClass))
	for name := range byClass {
		classes = append(classes, name)
	}
	sort.Strings(classes)
	for _, name := range classes {
		tl := byClass[name]
		total.attacks += tl.attacks
		total.refused += tl.refused
		total.benign += tl.benign
		total.passed += tl.passed
		if name == "benign" {
			t.Logf("%-14s %d/%d pass", name, tl.passed, tl.benign)
		} else {
			t.Logf("%-14s %d/%d refused", name, tl.refused, tl.attacks)
		}
	}
	t.Logf("attacks refused: %d/%d; benign lines passing: %d/%d", total.refused, total.attacks, total.passed, total.benign)
	if total.attacks < 150 || total.benign < 40 {
		t.Errorf("the set is too small: %d attacks and %d benign lines (want at least 150 and 40)", total.attacks, total.benign)
	}
	for _, f := range failures {
		t.Error(f)
	}
}

// loadCases reads a JSON-lines set of cases from testdata.
func loadCases(t *testing.T, name string) []adversarialCase {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []adversarialCase
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var c adversarialCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("testdata/%s:%d: %v", name, line, err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// adversarialFixture is a home directory with shiro's state, ~/.ssh and a
// shell startup file, and a workspace in it with a git directory, secrets
// and links to them.
type adversarialFixture struct {
	home, ws, state string
}

func newAdversarialFixture(t *testing.T) adversarialFixture {
	t.Helper()
	root := t.TempDir()
	fx := adversarialFixture{home: filepath.Join(root, "home")}
	fx.ws = filepath.Join(fx.home, "proj")
	fx.state = filepath.Join(fx.home, ".shiro-neko")
	for _, d := range []string{filepath.Join(fx.ws, ".git", "hooks"), filepath.Join(fx.ws, "config"),
		filepath.Join(fx.home, ".ssh"), filepath.Join(fx.state, "hooks"), filepath.Join(root, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{
		filepath.Join(fx.ws, ".env"): "TOKEN=x\n", filepath.Join(fx.ws, ".env.sample"): "TOKEN=\n",
		filepath.Join(fx.ws, ".env.example"): "TOKEN=\n", filepath.Join(fx.ws, "config", "credentials.json"): "{}",
		filepath.Join(fx.ws, "notes.txt"): "hello", filepath.Join(fx.home, ".ssh", "id_rsa"): "key",
		filepath.Join(fx.home, ".bashrc"): "", filepath.Join(fx.state, "config.json"): "{}",
	} {
		if err := os.WriteFile(name, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		filepath.Join(fx.ws, "notes"):   ".env",
		filepath.Join(fx.ws, "key.lnk"): filepath.Join(fx.home, ".ssh", "id_rsa"),
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", fx.home)
	t.Setenv("TMPDIR", filepath.Join(root, "tmp"))
	return fx
}

// judge returns what the case's layer decides: block or pass for the
// plugins, allow, ask or deny for the rules.
func (fx adversarialFixture) judge(c adversarialCase, host *plugin.Host, rules *permission.Rules, policy *permission.Policy) string {
	switch c.Layer {
	case "chain":
		input, _ := json.Marshal(map[string]string{"command": c.Cmd})
		call := plugin.Call{Tool: "bash", Input: input, Cwd: fx.ws, Mutating: true, Commands: []string{c.Cmd}}
		if host.Check(context.Background(), call) != nil {
			return "block"
		}
		return "pass"
	case "rules":
		q := permission.Query{Tool: "bash", IsShell: true, Subjects: []string{c.Cmd}, Default: permission.Ask,
			Shell: []*shellguard.Analysis{shellguard.Analyze(c.Cmd)}}
		return string(rules.Check(q, nil).Decision)
	case "read":
		q := permission.Query{Tool: "read_file", Subjects: []string{c.Path}, Paths: true, Default: permission.Allow}
		return string(policy.Check(q).Decision)
	}
	return "unknown layer " + c.Layer
}
