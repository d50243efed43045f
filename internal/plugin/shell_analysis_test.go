package plugin_test

import (
	"context"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/shellguard"
)

// spy is a plugin that records the analyses it was handed.
func spy(seen *[][]*shellguard.Analysis) plugin.Plugin {
	return plugin.Plugin{Name: "spy", BeforeToolCall: func(_ context.Context, c plugin.Call) (string, error) {
		*seen = append(*seen, c.Shell)
		return "", nil
	}}
}

// Every plugin of a chain reads the analyses the call came with: the ones
// the gate will hand to the permission rules too.
func TestHostHandsEveryPluginTheCallsAnalyses(t *testing.T) {
	var seen [][]*shellguard.Analysis
	enabled, _ := plugin.Resolve([]string{"guard", "secrets", "no-force-push", "no-root"}, plugin.BuiltinDeps{})
	host := plugin.NewHost(append(append([]plugin.Plugin{spy(&seen)}, enabled...), spy(&seen))...)
	c := bashCall("git status && go test ./...")
	c.Commands = append(c.Commands, "ls -la")
	c.Shell = []*shellguard.Analysis{shellguard.Analyze(c.Commands[0]), shellguard.Analyze(c.Commands[1])}
	if b := host.Check(context.Background(), c); b != nil {
		t.Fatalf("blocked: %s", b.Reason)
	}
	if len(seen) != 2 {
		t.Fatalf("the spies ran %d times", len(seen))
	}
	for _, got := range seen {
		if len(got) != 2 || got[0] != c.Shell[0] || got[1] != c.Shell[1] {
			t.Errorf("a plugin saw %p, want the call's own %p", got, c.Shell)
		}
	}
	// A call built without analyses gets them made once, for the whole
	// chain: one parse per line and one per script it hands to a shell.
	seen = nil
	c = bashCall("git status")
	c.Commands = append(c.Commands, "sh -c 'ls | wc -l'")
	host.Check(context.Background(), c)
	if len(seen) != 2 || len(seen[0]) != 2 || len(seen[1]) != 2 {
		t.Fatalf("the chain saw %v", seen)
	}
	for i, a := range seen[0] {
		if a != seen[1][i] || a.Source() != c.Commands[i] || a.Parses() != 1+len(a.Scripts()) {
			t.Errorf("line %d: analyses %p and %p of %q, %d parses", i, a, seen[1][i], a.Source(), a.Parses())
		}
	}
	if n := seen[0][1].Parses(); n != 2 {
		t.Errorf("sh -c 'ls | wc -l' was parsed %d times, want twice (the line, then its script)", n)
	}
}

// An analysis of some other line never stands in for the command line.
func TestHostDoesNotTrustAnAnalysisOfAnotherLine(t *testing.T) {
	c := bashCall("rm -rf build")
	c.Shell = []*shellguard.Analysis{shellguard.Analyze("ls")}
	if check(t, plugin.Guard(), c) == "" {
		t.Error("the guard judged the analysis of ls instead of rm -rf build")
	}
	c.Shell = nil
	c.Commands = []string{"ls", "git push -f"}
	c.Shell = []*shellguard.Analysis{shellguard.Analyze("ls")} // one short
	if check(t, plugin.NoForcePush(), c) == "" {
		t.Error("the second line, which had no analysis, was not judged")
	}
	// Called outside a Host, a plugin makes its own.
	p := plugin.NoForcePush()
	if reason, err := p.BeforeToolCall(context.Background(), bashCall("git push -f")); err != nil || reason == "" {
		t.Errorf("direct call: %q, %v", reason, err)
	}
}

// The shell plugins judge a git alias defined on the line as what it runs.
func TestShellPluginsSeeThroughGitAliases(t *testing.T) {
	tests := []struct {
		p    plugin.Plugin
		line string
	}{
		{plugin.Guard(), "git -c alias.r='reset --hard' r"},
		{plugin.Guard(), "git -c alias.x='!sh -c \"rm -rf build\"' x"},
		{plugin.NoForcePush(), "git -c alias.p=push p -f origin"},
		{plugin.NoForcePush(), "git -c alias.x='!git push' x --force"},
		{plugin.NoGitConfig(), "git -c alias.c=config c --global user.name x"},
		{plugin.NoRoot(), "git -c alias.x='!sudo ls' x"},
	}
	for _, tt := range tests {
		if reason := check(t, tt.p, bashCall(tt.line)); reason == "" {
			t.Errorf("%s let %q through", tt.p.Name, tt.line)
		}
	}
	if reason := check(t, plugin.Guard(), bashCall("git -c alias.s='status -s' s")); reason != "" {
		t.Errorf("the guard refused a harmless alias: %s", reason)
	}
}

func TestManifestCommandPatternSeesGitAliases(t *testing.T) {
	m := plugin.Manifest{Name: "no-push", Description: "d", Deny: []plugin.DenyRule{
		{Tools: []string{"bash"}, CommandPattern: `^git push`, Reason: "no pushing"},
	}}
	p := m.Plugin()
	if check(t, p, bashCall("git -c alias.p='push -f' p")) == "" {
		t.Error("the alias for git push passed")
	}
	if reason := check(t, p, bashCall("git -c alias.s=status s")); reason != "" {
		t.Errorf("git status through an alias refused: %s", reason)
	}
	if reason := check(t, p, bashCall("git -c alias.p='push -f' p")); !strings.Contains(reason, `"git push -f"`) {
		t.Errorf("refusal %q does not quote the expansion", reason)
	}
}
