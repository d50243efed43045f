package nav

import (
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
)

// The package does no work when it is loaded (see tooltest.NoInitWork).
func TestNoInitWork(t *testing.T) {
	tooltest.NoInitWork(t, "github.com/shiro-neko/shiro/internal/tools/nav")
}

// Building the tools compiles no language rule; the first symbol call
// compiles them, once for every tool of the set.
func TestLanguageRulesAreBuiltOnFirstUse(t *testing.T) {
	env := newEnv(t, map[string]string{"a.go": "package a\n\nfunc F() {}\n"})
	var builds atomic.Int32
	tools := withRules(env.Env, func() []*language {
		builds.Add(1)
		return buildLanguages()
	})
	for _, tl := range tools {
		_ = tl.Info()
	}
	if n := builds.Load(); n != 0 {
		t.Fatalf("building the tools compiled the rules %d times", n)
	}
	byName := map[string]tool.Tool{}
	for _, tl := range tools {
		byName[tl.Info().Name] = tl
	}
	for _, c := range []struct{ name, input, want string }{
		{"find_symbol", `{"name":"F"}`, "a.go:3: func F() {}"},
		{"outline", `{"path":"a.go"}`, "3: func F() {}"},
		{"read_symbol", `{"path":"a.go","name":"F"}`, "a.go:3-3\n3: func F() {}"},
	} {
		res, err := tooltest.Invoke(t.Context(), byName[c.name], json.RawMessage(c.input), tool.Runtime{})
		if err != nil || res.Output != c.want {
			t.Fatalf("%s: %q, %v", c.name, res.Output, err)
		}
	}
	if n := builds.Load(); n != 1 {
		t.Fatalf("the rules were compiled %d times, want once", n)
	}
}
