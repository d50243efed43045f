package main

import (
	"fmt"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/shiro-neko/shiro/internal/cli"
	"github.com/shiro-neko/shiro/internal/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	testscript.Main(m, map[string]func(){
		"shiro": func() { os.Exit(cli.Main(os.Args[1:])) },
	})
}

// TestScripts drives the real binary through testdata/script/*.txtar:
// flags, exit codes, JSON events and files written.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		// listen PORTFILE HITFILE: a loopback listener a script's model
		// must not reach (sandbox scripts).
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"listen": listenCmd},
		// [landlock]: this machine can confine commands (sandbox scripts).
		Condition: func(cond string) (bool, error) {
			if cond != "landlock" {
				return false, fmt.Errorf("unknown condition %q", cond)
			}
			ok, _ := sandbox.Available()
			return ok, nil
		},
		Setup: func(env *testscript.Env) error {
			// Every script gets its own state directory and no keys.
			env.Setenv("SHIRO_HOME", env.WorkDir+"/.home")
			for _, k := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "SHIRO_API_KEY", "SHIRO_PROVIDER", "SHIRO_MODEL", "SHIRO_BASE_URL"} {
				env.Setenv(k, "")
			}
			return nil
		},
	})
}
