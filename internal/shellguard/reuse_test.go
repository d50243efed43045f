package shellguard_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/shellguard"
)

// The permission rules and the no-env-write plugin read a redirection to
// a device the same way, because both ask HarmlessDevice: what one lets
// through as no file written, the other does too. /dev/fd/N is a file to
// both (before the fold, the rules alone trusted /dev/fd/1 and /dev/fd/2).
func TestRulesAndPluginsAgreeOnHarmlessDevices(t *testing.T) {
	rules, err := permission.Parse(json.RawMessage(`{"bash": {"echo *": "allow"}}`))
	if err != nil {
		t.Fatal(err)
	}
	host := plugin.NewHost(plugin.NoEnvWrite())
	for target, harmless := range map[string]bool{
		"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true, "/dev/tty": true,
		"/dev/fd/1": false, "/dev/fd/2": false, "/dev/fd/3": false, "/dev/sda": false, ".env": false,
	} {
		if got := shellguard.HarmlessDevice(target); got != harmless {
			t.Errorf("HarmlessDevice(%q) = %v, want %v", target, got, harmless)
		}
		line := "echo hi > " + target
		res := rules.Check(permission.Query{Tool: "bash", IsShell: true, Subjects: []string{line}, Default: permission.Ask}, nil)
		if rulesTrust := res.Decision == permission.Allow; rulesTrust != harmless {
			t.Errorf("rules on %q: %s (cause %s); want allowed only for a harmless device", line, res.Decision, res.Cause)
		}
		line = "echo API_KEY=sk-1 | cat > " + target
		input, _ := json.Marshal(map[string]string{"command": line})
		blocked := host.Check(context.Background(), plugin.Call{Tool: "bash", Input: input, Mutating: true, Commands: []string{line}})
		if pluginTrusts := blocked == nil; pluginTrusts != harmless {
			t.Errorf("no-env-write on %q: blocked %v; want blocked only for a file", line, blocked)
		}
	}
}

// ScanArgs reads plain words as scanOptions reads a command's: options
// after operands, values attached, next or after =, abbreviated long
// options, and "--" ending the options.
func TestScanArgsReadsPlainWords(t *testing.T) {
	opts, ops := shellguard.ScanArgs(
		[]string{"main", "-qbfeat", "--orph", "x", "--conflict=diff3", "-c", "y", "-", "--", "-b"},
		"bc", "orphan", "conflict")
	want := map[string][]string{"q": {""}, "b": {"feat"}, "orph": {"x"}, "conflict": {"diff3"}, "c": {"y"}}
	if len(opts) != len(want) {
		t.Errorf("options %v, want %v", opts, want)
	}
	for name, values := range want {
		if got := opts[name]; len(got) != len(values) || got[0] != values[0] {
			t.Errorf("option %q = %q, want %q", name, got, values)
		}
	}
	if got := strings.Join(ops, " "); got != "main - -b" {
		t.Errorf("operands %q, want %q", got, "main - -b")
	}
}
