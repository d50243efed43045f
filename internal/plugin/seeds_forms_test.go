package plugin_test

import (
	"fmt"
	"sort"
	"testing"

	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/plugin"
)

// TestSeedsTableForms judges testdata/seeds-forms.jsonl with the default
// plugins: every row of the seeds' guard table (plugins.md) written in
// equivalent forms (wrappers, quoting, escapes, a literal piped into a
// shell, plumbing, SQL comments, device paths, modes, fork bombs by
// structure) must be refused, and the everyday commands of a coding session
// must pass. The rates are logged for the report; every row must be judged
// as labelled.
func TestSeedsTableForms(t *testing.T) {
	fx := newAdversarialFixture(t)
	cases := loadCases(t, "seeds-forms.jsonl")
	enabled, unknown := plugin.Resolve(config.DefaultPlugins(), plugin.BuiltinDeps{StateDir: fx.state})
	if len(unknown) > 0 {
		t.Fatalf("default plugins %v do not resolve", unknown)
	}
	host := plugin.NewHost(enabled...)
	refused, attacks, passed, everyday := 0, 0, 0, 0
	byClass := map[string][2]int{}
	var failures []string
	for _, c := range cases {
		c.Layer = "chain"
		got := fx.judge(c, host, nil, nil)
		n := byClass[c.Class]
		n[1]++
		if got == c.Expect {
			n[0]++
		} else {
			failures = append(failures, fmt.Sprintf("#%d %s: want %s, got %s: %q", c.ID, c.Class, c.Expect, got, c.Cmd))
		}
		byClass[c.Class] = n
		if c.Expect == "block" {
			attacks++
			if got == "block" {
				refused++
			}
		} else {
			everyday++
			if got == "pass" {
				passed++
			}
		}
	}
	classes := make([]string, 0, len(byClass))
	for name := range byClass {
		classes = append(classes, name)
	}
	sort.Strings(classes)
	for _, name := range classes {
		t.Logf("%-10s %d/%d as labelled", name, byClass[name][0], byClass[name][1])
	}
	t.Logf("refused %d/%d forms of the seeds' table; false positives %d/%d everyday commands", refused, attacks, everyday-passed, everyday)
	if attacks < 60 || everyday < 60 {
		t.Errorf("the corpus is too small: %d forms and %d everyday commands (want at least 60 of each)", attacks, everyday)
	}
	for _, f := range failures {
		t.Error(f)
	}
}
