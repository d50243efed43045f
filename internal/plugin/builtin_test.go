package plugin_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/plugin"
)

func registryOrder() []string {
	return []string{"guard", "secrets", "protect", "time", "no-force-push", "no-net-pipe", "no-root", "no-env-write",
		"bell", "format", "no-main-commit", "no-git-config", "confirm-delete", "conventional-commit", "tests-first", "small-diffs"}
}

func names(ps []plugin.Plugin) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

func TestBuiltinsAreInRegistryOrder(t *testing.T) {
	if got := names(plugin.Builtins(plugin.BuiltinDeps{})); !slices.Equal(got, registryOrder()) {
		t.Fatalf("Builtins order:\n got %v\nwant %v", got, registryOrder())
	}
	if got := plugin.BuiltinNames(); !slices.Equal(got, registryOrder()) {
		t.Fatalf("BuiltinNames: %v", got)
	}
}

func TestResolveUsesRegistryOrderNotConfigOrder(t *testing.T) {
	enabled, unknown := plugin.Resolve([]string{"time", "bell", "nope", "guard", "time", "Guard", "nope"}, plugin.BuiltinDeps{})
	if got, want := names(enabled), []string{"guard", "time", "bell"}; !slices.Equal(got, want) {
		t.Fatalf("enabled %v, want %v", got, want)
	}
	if want := []string{"nope", "Guard"}; !slices.Equal(unknown, want) {
		t.Fatalf("unknown %v, want %v", unknown, want)
	}
	if enabled, unknown := plugin.Resolve(nil, plugin.BuiltinDeps{}); len(enabled) != 0 || len(unknown) != 0 {
		t.Fatalf("nothing named, got %v %v", names(enabled), unknown)
	}
}

func TestDefaultPluginsResolve(t *testing.T) {
	enabled, unknown := plugin.Resolve(config.DefaultPlugins(), plugin.BuiltinDeps{})
	if len(unknown) != 0 {
		t.Fatalf("config's default plugins include unknown names %v", unknown)
	}
	want := []string{"guard", "secrets", "protect", "time", "no-force-push", "no-net-pipe", "no-root", "no-env-write"}
	if got := names(enabled); !slices.Equal(got, want) {
		t.Fatalf("defaults resolve to %v, want %v", got, want)
	}
}

// Every plugin that can block tells the model what it refuses, and to ask
// the user rather than work around it.
func TestEveryBlockingPluginHasAnAppendix(t *testing.T) {
	for _, p := range plugin.Builtins(plugin.BuiltinDeps{}) {
		if p.Description == "" {
			t.Errorf("%s has no description", p.Name)
		}
		if p.BeforeToolCall == nil {
			continue
		}
		if p.Appendix == "" {
			t.Errorf("%s can block but has no appendix", p.Name)
			continue
		}
		if !strings.Contains(strings.ToLower(p.Appendix), "user") {
			t.Errorf("%s's appendix does not send the model to the user: %q", p.Name, p.Appendix)
		}
	}
}

func TestAdvisoryPluginsOnlyAdvise(t *testing.T) {
	enabled, _ := plugin.Resolve([]string{"conventional-commit", "tests-first", "small-diffs"}, plugin.BuiltinDeps{})
	for _, p := range enabled {
		if p.BeforeToolCall != nil || p.AfterTurn != nil || len(p.Tools) > 0 || p.Appendix == "" {
			t.Errorf("%s should be an appendix and nothing else", p.Name)
		}
	}
}

// bashCall is a bash call as the gate derives it from the bash tool's
// metadata.
func bashCall(command string) plugin.Call {
	input, _ := json.Marshal(map[string]string{"command": command})
	return plugin.Call{Tool: "bash", Input: input, Mutating: true, Commands: []string{command}}
}

// check runs one plugin's BeforeToolCall through a Host, as the gate does.
func check(t *testing.T, p plugin.Plugin, c plugin.Call) string {
	t.Helper()
	if b := plugin.NewHost(p).Check(context.Background(), c); b != nil {
		if b.Plugin != p.Name {
			t.Fatalf("blocked by %q, want %q", b.Plugin, p.Name)
		}
		return b.Reason
	}
	return ""
}
