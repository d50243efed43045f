//go:build unix

package hooks

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestStdinCarriesTheCall(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	stdin := f.evidence("stdin")
	f.hook("guard", KindPreTool, []string{"bash"}, "cat > "+stdin+"\necho '{\"allow\":true}'")
	r := f.approved("guard")

	res := r.PreTool(context.Background(), "bash", "call-7", f.project, json.RawMessage(`{"command": "ls -la"}`))

	wantAllowed(t, res)
	if res.Rewritten || string(res.Input) != `{"command": "ls -la"}` {
		t.Errorf("result = %+v; want the original input, untouched", res)
	}
	want := `{"version":1,"event":"pre_tool","tool":"bash","input":{"command":"ls -la"},"cwd":"` + f.project +
		`","session_id":"session-1","tool_call_id":"call-7"}`
	if got := f.read(stdin); got != want {
		t.Errorf("stdin =\n%s\nwant\n%s", got, want)
	}
}

// Rewrites chain in name order, and the input is replaced, not merged.
func TestRewritesChainInNameOrder(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	seen := f.evidence("seen-by-b")
	f.hook("a-rewrite", KindPreTool, []string{"bash"}, `echo '{"allow":true,"input":{"command":"ls --safe"}}'`)
	f.hook("b-check", KindPreTool, []string{"bash"}, "cat > "+seen+"\necho '{\"allow\":true}'")
	r := f.approved("a-rewrite", "b-check")

	res := preBash(r, "ls")

	wantAllowed(t, res)
	if !res.Rewritten || string(res.Input) != `{"command":"ls --safe"}` || res.Hook != "a-rewrite" {
		t.Errorf("result = %+v; want the rewrite by a-rewrite", res)
	}
	var got preToolPayload
	if err := json.Unmarshal([]byte(f.read(seen)), &got); err != nil {
		t.Fatal(err)
	}
	if string(got.Input) != `{"command":"ls --safe"}` {
		t.Errorf("the next hook saw %s, want the rewrite", got.Input)
	}
}

func TestRewriteFailingTheSchemaBlocks(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ran := f.evidence("b-ran")
	f.hook("a-rewrite", KindPreTool, []string{"bash"}, `echo '{"allow":true,"input":{"cmd":"ls"}}'`)
	f.hook("b-next", KindPreTool, []string{"bash"}, "touch "+ran+"\necho '{\"allow\":true}'")
	r := f.approved("a-rewrite", "b-next")

	res := preBash(r, "ls")

	wantBlocked(t, res, "a-rewrite", "rewrote the input of bash into something the tool does not accept",
		`bash input must be {"command": string}`)
	if string(res.Input) != `{"command":"ls"}` {
		t.Errorf("a blocked call returned input %s, want the original", res.Input)
	}
	if f.exists(ran) {
		t.Error("the chain went on after a block")
	}
}

func TestRewriteWithoutAValidatorBlocks(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.hook("rewrite", KindPreTool, []string{"bash"}, `echo '{"allow":true,"input":{"command":"ls"}}'`)
	f.approved("rewrite")
	r := f.runner(func(o *Options) { o.Validate = nil })

	wantBlocked(t, preBash(r, "pwd"), "rewrite", "no schema check is available")
}

func TestRefusals(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, output, want string }{
		{"allow false", `{"allow":false,"reason":"no force pushes"}`, `hook "guard" refused the call: no force pushes`},
		{"allow false without reason", `{"allow":false}`, `refused the call: no reason given`},
		{"blocked", `{"blocked":"x"}`, `hook "guard" refused the call: x`},
		{"blocked with allow", `{"blocked":"x","allow":true}`, `"blocked" must stand alone`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.hook("guard", KindPreTool, []string{"bash"}, "echo '"+c.output+"'")
			wantBlocked(t, preBash(f.approved("guard"), "git push -f"), "guard", c.want)
		})
	}
}

func TestHooksSeeOnlyAScrubbedEnvironment(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
	t.Setenv("OPENAI_API_KEY", "sk-secret")
	t.Setenv("GITHUB_TOKEN", "ghp_secret")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "aws-secret")
	t.Setenv("TMUX", "/tmp/tmux-1000/default,1,0")
	t.Setenv("SSH_AUTH_SOCK", "/tmp/ssh-agent.sock")
	t.Setenv("NPM_TOKEN", "npm_passed")
	t.Setenv("LANG", "C.UTF-8")
	f := newFixture(t)
	envFile := f.evidence("env")
	f.hook("guard", KindPreTool, []string{"*"}, "env > "+envFile+"\necho '{\"allow\":true}'")
	r := f.runner(func(o *Options) { o.Passthrough = []string{"NPM_TOKEN", "PATH"} })
	if err := r.Approve("guard"); err != nil {
		t.Fatal(err)
	}

	wantAllowed(t, preBash(r, "ls"))

	env := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(f.read(envFile)), "\n") {
		k, v, _ := strings.Cut(line, "=")
		if _, twice := env[k]; twice {
			t.Errorf("the hook saw %s twice", k)
		}
		env[k] = v
	}
	// PWD is added by /bin/sh itself; NPM_TOKEN is passed through.
	allowed := []string{"PATH", "HOME", "LANG", "SHIRO_PROJECT_DIR", "SHIRO_HOOK_EVENT", "SHIRO_HOOK_NAME", "PWD", "NPM_TOKEN"}
	for k := range env {
		if !slices.Contains(allowed, k) {
			t.Errorf("the hook saw %s", k)
		}
	}
	want := map[string]string{"SHIRO_HOOK_NAME": "guard", "SHIRO_HOOK_EVENT": "pre_tool",
		"SHIRO_PROJECT_DIR": f.project, "LANG": "C.UTF-8", "NPM_TOKEN": "npm_passed"}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s = %q, want %q", k, env[k], v)
		}
	}
}

func TestToolsFilter(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ran := f.evidence("ran")
	f.hook("bash-only", KindPreTool, []string{"bash"}, "echo x >> "+ran+"\necho '{\"blocked\":\"bash is off\"}'")
	r := f.approved("bash-only")

	res := r.PreTool(context.Background(), "read_file", "c1", "", json.RawMessage(`{"path":"a.go"}`))
	wantAllowed(t, res)
	if f.exists(ran) {
		t.Fatal("a bash hook ran for read_file")
	}
	wantBlocked(t, preBash(r, "ls"), "bash-only", "bash is off")
}

// After_turn hooks never run before a tool call, and a pending one does
// not block tools.
func TestAfterTurnHooksDoNotTakePartInCalls(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.hook("notify", KindAfterTurn, []string{"*"}, `exit 1`)
	wantAllowed(t, preBash(f.runner(), "ls"))
}

func TestConcurrentCallsAreSafe(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.hook("guard", KindPreTool, []string{"*"}, `cat >/dev/null; echo '{"allow":true,"input":{"command":"ls"}}'`)
	r := f.approved("guard")
	var wg sync.WaitGroup
	results := make([]Result, 8)
	for i := range results {
		wg.Go(func() { results[i] = preBash(r, "pwd") })
	}
	wg.Wait()
	for _, res := range results {
		wantAllowed(t, res)
		if string(res.Input) != `{"command":"ls"}` {
			t.Errorf("input = %s", res.Input)
		}
	}
}

func TestObserveHearsEveryDecision(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.hook("a-allow", KindPreTool, []string{"*"}, `echo '{"allow":true}'`)
	f.hook("b-refuse", KindPreTool, []string{"*"}, `echo '{"allow":false,"reason":"no"}'`)
	f.approved("a-allow", "b-refuse")
	var runs []Run
	r := f.runner(func(o *Options) { o.Observe = func(run Run) { runs = append(runs, run) } })

	preBash(r, "ls")

	if len(runs) != 2 || runs[0].Outcome != OutcomeAllowed || runs[1].Outcome != OutcomeRefused ||
		runs[1].Reason == "" || len(runs[0].Digest) != 64 {
		t.Errorf("observed %+v", runs)
	}
}

func TestCancelledCallBlocksWithoutRunning(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ran := f.evidence("ran")
	f.hook("guard", KindPreTool, []string{"*"}, "touch "+ran+"\necho '{\"allow\":true}'")
	r := f.approved("guard")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()

	res := r.PreTool(ctx, "bash", "c", "", json.RawMessage(`{"command":"ls"}`))

	wantBlocked(t, res, "guard", "was stopped because the call was cancelled")
	if f.exists(ran) {
		t.Error("the hook ran for a cancelled call")
	}
}
