//go:build unix

package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/claudecode"
)

// claudeSettings writes settings JSON at the Claude Code place for scope
// ("user": the fixture's home, else the project) and returns a runner
// with the fixture's hook folders and those settings' hooks.
func (f *fixture) claudeRunner(scope claudecode.Scope, settings string) *Runner {
	f.t.Helper()
	home := filepath.Join(filepath.Dir(f.project), "home")
	path := filepath.Join(f.project, ".claude", "settings.json")
	if scope == claudecode.ScopeUser {
		path = filepath.Join(home, ".claude", "settings.json")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		f.t.Fatal(err)
	}
	f.write(path, settings, 0o644)
	files, err := claudecode.Load(home, f.project)
	if err != nil {
		f.t.Fatal(err)
	}
	list, problems, err := claudecode.Hooks(files)
	if err != nil {
		f.t.Fatal(err)
	}
	for _, p := range problems {
		f.t.Logf("settings problem: %s", p)
	}
	r := f.runner()
	if ps := r.set.AddClaude(list, f.project); len(ps) > 0 {
		f.t.Fatalf("AddClaude: %v", ps)
	}
	return r
}

// oneHook is settings with one command hook for event and matcher.
func oneHook(event, matcher, command string) string {
	b, _ := json.Marshal(map[string]any{"hooks": map[string]any{event: []any{
		map[string]any{"matcher": matcher, "hooks": []any{map[string]any{"type": "command", "command": command}}},
	}}})
	return string(b)
}

func TestClaudeExitTwoBlocksWithStderr(t *testing.T) {
	f := newFixture(t)
	r := f.claudeRunner(claudecode.ScopeUser, oneHook("PreToolUse", "Bash|Write", `echo "no rm today" >&2; exit 2`))
	wantBlocked(t, preBash(r, "rm -rf x"), "cc-pre-tool-use-1", "no rm today")
	in := json.RawMessage(`{"path":"a"}`)
	if res := r.PreTool(context.Background(), "read_file", "c", "", in); res.Blocked {
		t.Fatalf("read_file is not Bash or Write, but was blocked: %s", res.Reason)
	}
	if res := r.PreTool(context.Background(), "write_file", "c", "", in); !res.Blocked {
		t.Fatal("write_file is Claude Code's Write, but was not blocked")
	}
}

func TestClaudeStdinAndEnvironment(t *testing.T) {
	f := newFixture(t)
	t.Setenv("GITHUB_TOKEN", "ghp_secret")
	out := f.evidence("stdin")
	r := f.claudeRunner(claudecode.ScopeUser, oneHook("PreToolUse", "", `cat > `+out+`; env >> `+out+`.env`))
	wantAllowed(t, preBash(r, "ls"))
	var got claudePayload
	if err := json.Unmarshal([]byte(f.read(out)), &got); err != nil {
		t.Fatal(err)
	}
	if got.HookEventName != "PreToolUse" || got.ToolName != "Bash" || string(got.ToolInput) != `{"command":"ls"}` || got.SessionID != "session-1" || got.Cwd != f.project {
		t.Errorf("stdin = %+v", got)
	}
	env := f.read(out + ".env")
	if !strings.Contains(env, "CLAUDE_PROJECT_DIR="+f.project+"\n") {
		t.Errorf("no CLAUDE_PROJECT_DIR in %q", env)
	}
	if strings.Contains(env, "ghp_secret") {
		t.Error("the hook saw GITHUB_TOKEN")
	}
}

func TestClaudeProjectHookNeedsItsDigestApproved(t *testing.T) {
	f := newFixture(t)
	script := filepath.Join(f.project, ".claude", "hooks", "guard.sh")
	if err := os.MkdirAll(filepath.Dir(script), 0o755); err != nil {
		t.Fatal(err)
	}
	f.write(script, "#!/bin/sh\nexit 0\n", 0o755)
	r := f.claudeRunner(claudecode.ScopeProject, oneHook("PreToolUse", "Bash", `"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh`))
	wantBlocked(t, preBash(r, "ls"), "cc-pre-tool-use-1", "is not approved", "shiro hooks approve cc-pre-tool-use-1")
	status := r.Status()
	if len(status) != 1 || status[0].State != StatePending || !strings.Contains(status[0].Manifest, ".claude/hooks/guard.sh") {
		t.Fatalf("status = %+v", status)
	}
	if err := r.ApproveDigest("cc-pre-tool-use-1", status[0].Digest); err != nil {
		t.Fatal(err)
	}
	wantAllowed(t, preBash(r, "ls"))

	// Editing the script the command runs revokes the approval.
	f.write(script, "#!/bin/sh\nexit 0 # changed\n", 0o755)
	wantBlocked(t, preBash(r, "ls"), "cc-pre-tool-use-1", "has changed since it was approved")
	if s := r.Status(); s[0].State != StateChanged {
		t.Errorf("state after the edit = %s", s[0].State)
	}
}

func TestClaudeJSONReplies(t *testing.T) {
	for _, tc := range []struct {
		name, event, stdout string
		check               func(t *testing.T, res Result)
	}{
		{"deny", "PreToolUse", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not here"}}`, func(t *testing.T, res Result) {
			if !res.Blocked || !strings.Contains(res.Reason, "not here") {
				t.Errorf("%+v", res)
			}
		}},
		{"allow", "PreToolUse", `{"hookSpecificOutput":{"permissionDecision":"allow"}}`, func(t *testing.T, res Result) {
			if res.Blocked || !res.Allow || res.Ask {
				t.Errorf("%+v", res)
			}
		}},
		{"ask", "PreToolUse", `{"hookSpecificOutput":{"permissionDecision":"ask"}}`, func(t *testing.T, res Result) {
			if res.Blocked || !res.Ask {
				t.Errorf("%+v", res)
			}
		}},
		{"rewrite", "PreToolUse", `{"hookSpecificOutput":{"updatedInput":{"command":"ls -l"}}}`, func(t *testing.T, res Result) {
			if !res.Rewritten || string(res.Input) != `{"command":"ls -l"}` {
				t.Errorf("%+v", res)
			}
		}},
		{"rewrite the tool refuses", "PreToolUse", `{"hookSpecificOutput":{"updatedInput":{"cmd":"ls"}}}`, func(t *testing.T, res Result) {
			if !res.Blocked || !strings.Contains(res.Reason, "does not accept") {
				t.Errorf("%+v", res)
			}
		}},
		{"malformed blocks", "PreToolUse", `{"decision":"maybe"}`, func(t *testing.T, res Result) {
			if !res.Blocked || !strings.Contains(res.Reason, "invalid output") {
				t.Errorf("%+v", res)
			}
		}},
		{"unknown key blocks", "PreToolUse", `{"allow":true}`, func(t *testing.T, res Result) {
			if !res.Blocked {
				t.Errorf("%+v", res)
			}
		}},
		{"stop the turn", "PreToolUse", `{"continue":false,"stopReason":"enough","systemMessage":"bye"}`, func(t *testing.T, res Result) {
			if !res.Stop || !strings.Contains(res.StopReason, "enough") || len(res.Messages) != 1 || !strings.Contains(res.Messages[0], "bye") {
				t.Errorf("%+v", res)
			}
		}},

		{"post-tool context", "PostToolUse", `{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"lint: 2 warnings"}}`, func(t *testing.T, res Result) {
			if res.Blocked || len(res.Context) != 1 || res.Context[0] != "lint: 2 warnings" {
				t.Errorf("%+v", res)
			}
		}},
		{"post-tool block tells the model", "PostToolUse", `{"decision":"block","reason":"tests fail"}`, func(t *testing.T, res Result) {
			if res.Blocked || len(res.Context) != 1 || !strings.Contains(res.Context[0], "tests fail") {
				t.Errorf("%+v", res)
			}
		}},
		{"wrong event name", "PostToolUse", `{"hookSpecificOutput":{"hookEventName":"PreToolUse"}}`, func(t *testing.T, res Result) {
			if len(res.Messages) != 1 || !strings.Contains(res.Messages[0], "invalid output") {
				t.Errorf("a malformed post-tool reply is reported: %+v", res)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			r := f.claudeRunner(claudecode.ScopeUser, oneHook(tc.event, "Bash", "cat >/dev/null; printf '%s' '"+tc.stdout+"'"))
			kind := claudeKinds()[tc.event]
			tc.check(t, r.Fire(context.Background(), Event{Kind: kind, Tool: "bash", Input: json.RawMessage(`{"command":"ls"}`)}))
		})
	}
}

func TestClaudeStopHookSendsTheModelBack(t *testing.T) {
	f := newFixture(t)
	log := f.evidence("stop")
	r := f.claudeRunner(claudecode.ScopeUser, oneHook("Stop", "", `tee -a `+log+` | grep -q '"stop_hook_active":true' && exit 0; echo "run the tests first" >&2; exit 2`))
	first := r.Fire(context.Background(), Event{Kind: KindStop})
	if !first.Blocked || !strings.Contains(first.Reason, "run the tests first") {
		t.Fatalf("first stop = %+v", first)
	}
	if again := r.Fire(context.Background(), Event{Kind: KindStop, StopActive: true}); again.Blocked {
		t.Fatalf("second stop = %+v", again)
	}
}

func TestClaudePlainStdoutIsContextForPromptsAndStarts(t *testing.T) {
	f := newFixture(t)
	settings := `{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"echo branch is main"}]}],
		"SessionStart":[{"hooks":[{"type":"command","command":"echo 3 open issues"}]}],
		"Notification":[{"hooks":[{"type":"command","command":"echo ignored"}]}]}}`
	r := f.claudeRunner(claudecode.ScopeUser, settings)
	for kind, want := range map[Kind]string{KindUserPrompt: "branch is main", KindSessionStart: "3 open issues", KindNotification: ""} {
		res := r.Fire(context.Background(), Event{Kind: kind, Prompt: "hi"})
		got := strings.Join(res.Context, "|")
		if got != want {
			t.Errorf("%s context = %q, want %q", kind, got, want)
		}
	}
}

func TestFailuresBlockOnlyWhereTheEventGuards(t *testing.T) {
	f := newFixture(t)
	settings := `{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"exit 1"}]}],
		"SessionEnd":[{"hooks":[{"type":"command","command":"exit 1"}]}]}}`
	r := f.claudeRunner(claudecode.ScopeUser, settings)
	if res := r.Fire(context.Background(), Event{Kind: KindUserPrompt}); !res.Blocked || !strings.Contains(res.Reason, "exited with status 1") {
		t.Errorf("a failing user_prompt hook must refuse the prompt: %+v", res)
	}
	if res := r.Fire(context.Background(), Event{Kind: KindSessionEnd}); res.Blocked || len(res.Messages) != 1 {
		t.Errorf("a failing session_end hook is reported, not blocking: %+v", res)
	}
}

func TestShiroHooksOfTheNewEvents(t *testing.T) {
	f := newFixture(t)
	f.hook("lint", KindPostTool, []string{"bash"}, `cat >/dev/null; echo '{"context":"2 lint warnings"}'`)
	f.hook("no-secrets", KindUserPrompt, []string{"*"}, `grep -q password && { echo '{"blocked":"do not paste passwords"}'; exit 0; }; echo '{"message":"prompt ok"}'`)
	f.hook("quiet", KindSessionEnd, []string{"*"}, `exit 0`)
	r := f.approved("lint", "no-secrets", "quiet")
	post := r.Fire(context.Background(), Event{Kind: KindPostTool, Tool: "bash", Input: json.RawMessage(`{"command":"ls"}`), Output: "a\n"})
	if len(post.Context) != 1 || post.Context[0] != "2 lint warnings" {
		t.Errorf("post_tool = %+v", post)
	}
	if res := r.Fire(context.Background(), Event{Kind: KindPostTool, Tool: "read_file"}); len(res.Context) != 0 {
		t.Errorf("lint covers bash only: %+v", res)
	}
	if res := r.Fire(context.Background(), Event{Kind: KindUserPrompt, Prompt: "my password is x"}); !res.Blocked || res.Reason != "do not paste passwords" {
		t.Errorf("user_prompt = %+v", res)
	}
	if res := r.Fire(context.Background(), Event{Kind: KindUserPrompt, Prompt: "hello"}); res.Blocked || len(res.Messages) != 1 {
		t.Errorf("user_prompt = %+v", res)
	}
	if res := r.Fire(context.Background(), Event{Kind: KindSessionEnd, Reason: "exit"}); res.Blocked || len(res.Messages) != 0 {
		t.Errorf("session_end = %+v", res)
	}
}

func TestClaudeContinueFalseKeepsTheCallFromRunning(t *testing.T) {
	f := newFixture(t)
	r := f.claudeRunner(claudecode.ScopeUser, oneHook("PreToolUse", "Bash", `cat >/dev/null; echo '{"continue":false,"stopReason":"enough for today"}'`))
	wantBlocked(t, preBash(r, "ls"), "", "enough for today")
}
