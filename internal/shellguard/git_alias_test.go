package shellguard

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// An alias defined on the command line is judged as what it stands for:
// the refusal has the category and reason of the command written out, and
// quotes the command as written.
func TestGitAliasIsRefusedLikeItsExpansion(t *testing.T) {
	tests := []struct{ alias, direct string }{
		{"git -c alias.r='reset --hard' r", "git reset --hard"},
		{"git -c alias.R='reset --hard' r", "git reset --hard"},
		{"git -c alias.r=reset r --hard", "git reset --hard"},
		{"git -c alias.p='push -f' p origin main", "git push -f origin main"},
		{"git -c alias.p=push p origin +main", "git push origin +main"},
		{"git -c alias.c='clean -fd' c", "git clean -fd"},
		{"git -c alias.r='--no-pager reset --hard' r", "git --no-pager reset --hard"},
		{"git -c alias.a=b -c alias.b='branch -D' a topic", "git branch -D topic"},
		{"git -C repo -c alias.r='reset --hard' r", "git -C repo reset --hard"},
		{"git -c alias.r=status -c alias.r='reset --hard' r", "git reset --hard"},
		{"sudo git -c alias.r='reset --hard' r", "sudo git reset --hard"},
		{"sh -c \"git -c alias.r='reset --hard' r\"", "sh -c 'git reset --hard'"},
		{"git --config-env=core.editor=EDITOR -c alias.r='reset --hard' r", "git reset --hard"},
		// A `!` alias runs a shell with the command's words as "$@".
		{"git -c alias.x='!rm' x -rf build", "rm -rf build"},
		{"git -c alias.x='!git reset' x --hard", "git reset --hard"},
		{"git -c alias.x='!git push' x \"$remote\" -f", "git push \"$remote\" -f"},
	}
	for _, tt := range tests {
		want := Check(tt.direct)
		if want == nil {
			t.Fatalf("the direct form %q passes", tt.direct)
		}
		got := Check(tt.alias)
		if got == nil {
			t.Errorf("%q passes; %q is refused (%s)", tt.alias, tt.direct, want.Category)
			continue
		}
		if got.Category != want.Category || got.Why != want.Why {
			t.Errorf("%q: %s (%s), want %s (%s) like %q", tt.alias, got.Category, got.Why, want.Category, want.Why, tt.direct)
		}
	}
}

func TestGitAliasThatIsHarmlessPasses(t *testing.T) {
	for _, src := range []string{
		"git -c alias.s='status -s' s",
		"git -c alias.l='log --oneline' l -5",
		"git -c alias.l='-p log' l",
		"git -c alias.r='reset --soft' r HEAD~1",
		"git -c alias.x='!echo hi' x",
		"git -c alias.x='!echo' x 'a b' \"$HOME\"",
		"git -c alias.p=push p origin feature",
		"git -c user.name=\"$NAME\" commit -m x",
	} {
		if v := Check(src); v != nil {
			t.Errorf("%q refused: %s", src, v.Refusal())
		}
	}
	// A `!` alias is read whether the command uses it or not.
	if v := Check("git -c alias.x='!rm -rf y' status"); v == nil || v.Category != CategoryRm {
		t.Errorf("an unused `!rm -rf` alias: %+v, want the rm rule", v)
	}
}

// An alias the guard cannot resolve before it runs is refused as opaque,
// and Effective cannot analyse the line either.
func TestUnresolvableGitAliasIsRefused(t *testing.T) {
	chain := "git"
	for i := range maxAliasChain + 1 {
		chain += fmt.Sprintf(" -c alias.a%d=a%d", i, i+1)
	}
	tests := []struct{ src, why string }{
		{chain + " a0", "the git aliases it runs are nested too deeply"},
		{`git -c alias.r="$X" r`, "the git alias it runs is decided at run time"},
		{`git -c "alias.r=$(cat f)" r`, "the git alias it runs is decided at run time"},
		{"git --config-env=alias.r=CMD r", "the git alias it runs is read from an environment variable"},
		{"git --config-env alias.r=CMD r", "the git alias it runs is read from an environment variable"},
		{"git -c alias.a=b -c alias.b=a a", "the git aliases it runs refer to each other in a loop"},
		{"git -c alias.a=a a", "the git aliases it runs refer to each other in a loop"},
		{"git -c alias.r='-C x reset --hard' r", "the git alias it runs sets global options"},
		{"git -c alias.r='--git-dir=x reset' r", "the git alias it runs sets global options"},
		{"git -c alias.r= r", "the git alias it runs is empty"},
		{`git -c "$kv" status`, "a git -c option decided at run time may define an alias"},
		{`git -c alias.s=status "$sub"`, "the git subcommand is decided at run time, and the line defines aliases"},
	}
	for _, tt := range tests {
		a := Analyze(tt.src)
		v := a.Verdict()
		if v == nil || v.Category != CategoryOpaque || v.Why != tt.why {
			t.Errorf("%q: verdict %+v, want opaque %q", tt.src, v, tt.why)
		}
		var ae *AnalysisError
		if _, err := a.Effective(); !errors.As(err, &ae) || ae.Why != tt.why {
			t.Errorf("%q: Effective error %v, want %q", tt.src, err, tt.why)
		}
		if calls := a.Git(); len(calls) != 1 {
			t.Errorf("%q: git calls %+v, want one", tt.src, calls)
		} else if u, ok := calls[0].Alias.(UnresolvedAlias); !ok || u.Why != tt.why {
			t.Errorf("%q: alias %#v, want UnresolvedAlias %q", tt.src, calls[0].Alias, tt.why)
		}
	}
}

func TestGitCallsRecordTheResolvedSubcommand(t *testing.T) {
	a := Analyze("cd x && git -C repo -C sub -c alias.p='push -f' p origin; sudo git -c alias.x='!rm' x 'a b'; git status")
	cmds, err := a.Effective()
	if err != nil {
		t.Fatal(err)
	}
	calls := a.Git()
	if len(calls) != 3 {
		t.Fatalf("git calls %+v, want 3", calls)
	}
	push := calls[0]
	if push.Subcommand != "push" || !slices.Equal(push.Args, []string{"-f", "origin"}) ||
		!slices.Equal(push.Dirs, []string{"repo", "sub"}) || push.Alias != (ExpandedAlias{Name: "p", Value: "push -f"}) {
		t.Errorf("push call %+v", push)
	}
	if got := push.Expanded.String(); got != "git -C repo -C sub push -f origin" {
		t.Errorf("expanded %q", got)
	}
	if got := push.Command.String(); got != "git -C repo -C sub -c alias.p=push -f p origin" {
		t.Errorf("command %q", got)
	}
	if g, ok := a.GitAt(push.Index); !ok || cmds[push.Index].String() != push.Command.String() || g.Subcommand != "push" {
		t.Errorf("GitAt(%d) = %+v, %v", push.Index, g, ok)
	}
	if _, ok := a.GitAt(0); ok {
		t.Error("GitAt(0) finds a git call for cd")
	}

	shell := calls[1]
	alias, ok := shell.Alias.(ShellAlias)
	if !ok || alias.Name != "x" || shell.Subcommand != "" || !slices.Equal(shell.Command.Via, []string{"sudo"}) {
		t.Fatalf("shell alias call %+v", shell)
	}
	script := a.Scripts()[alias.Script]
	if script.Source != "rm 'a b'" || !slices.Equal(script.Via, []string{"sudo", "git"}) || script.Approximate {
		t.Errorf("the alias's script %+v", script)
	}
	if status := calls[2]; status.Alias != nil || status.Subcommand != "status" || status.Expanded.String() != "git status" {
		t.Errorf("plain call %+v", status)
	}
}

// A chain that ends in a `!` alias runs that alias's script once, with
// the words that follow.
func TestGitAliasChainEndingInAShell(t *testing.T) {
	a := Analyze("git -c alias.a='b -rf' -c alias.b='!rm' a build")
	v := a.Verdict()
	if v == nil || v.Category != CategoryRm {
		t.Fatalf("verdict %+v, want the rm rule", v)
	}
	var sources []string
	for _, s := range a.Scripts() {
		sources = append(sources, s.Source)
	}
	if !slices.Equal(sources, []string{"rm '-rf' 'build'"}) {
		t.Errorf("scripts %q", sources)
	}
	if alias, ok := a.Git()[0].Alias.(ShellAlias); !ok || alias.Name != "a" || alias.Script != 0 {
		t.Errorf("alias %#v", a.Git()[0].Alias)
	}
}
