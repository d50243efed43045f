package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/shiro-neko/shiro/internal/cli"
	"github.com/shiro-neko/shiro/internal/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	testscript.Main(m, map[string]func(){
		"shiro":   func() { os.Exit(cli.Main(os.Args[1:])) },
		"peakrss": peakRSSMain,
	})
}

// TestScripts drives the real binary through testdata/script/*.txtar:
// flags, exit codes, JSON events and files written.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		// listen PORTFILE HITFILE: a loopback listener a script's model
		// must not reach (sandbox scripts).
		Cmds: scriptCmds(),
		// [landlock]: this machine can confine commands; [userns]: a user
		// namespace can be made here (sandbox scripts). With
		// SHIRO_REQUIRE_SANDBOX set (CI), a missing one fails the script
		// instead of skipping it.
		Condition: func(cond string) (bool, error) {
			var ok bool
			var why string
			switch cond {
			case "landlock":
				ok, why = sandbox.Available()
			case "userns":
				ok, why = userNamespaces()
			default:
				return false, fmt.Errorf("unknown condition %q", cond)
			}
			if !ok && os.Getenv("SHIRO_REQUIRE_SANDBOX") != "" {
				return false, fmt.Errorf("SHIRO_REQUIRE_SANDBOX is set, but [%s] does not hold: %s", cond, why)
			}
			return ok, nil
		},
		Setup: func(env *testscript.Env) error {
			env.Values[fakeKey] = &fakeSlot{}
			// Every script gets its own state directory and no keys.
			env.Setenv("SHIRO_HOME", env.WorkDir+"/.home")
			for _, k := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "SHIRO_API_KEY", "SHIRO_PROVIDER", "SHIRO_MODEL", "SHIRO_BASE_URL"} {
				env.Setenv(k, "")
			}
			return nil
		},
	})
}

// scriptCmds are the commands scripts have beyond testscript's own.
func scriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	// homeoutside: HOME in /var/tmp, outside the temp dir; gocache:
	// GOCACHE is the test runner's build cache.
	cmds := map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"listen": listenCmd, "homeoutside": homeOutsideCmd, "gocache": goCacheCmd,
	}
	for name, cmd := range fakeCmds {
		cmds[name] = cmd
	}
	return cmds
}

// userNamespaces reports whether unshare(1) can make a user namespace
// here, where this user is root.
func userNamespaces() (bool, string) {
	out, err := exec.Command("unshare", "-Ur", "id", "-u").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "0" {
		return false, fmt.Sprintf("unshare -Ur failed: %v: %s", err, out)
	}
	return true, ""
}
