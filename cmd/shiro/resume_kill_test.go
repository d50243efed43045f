//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/llm/llmtest"
)

// TestKilledMidTurnThenContinued kills a real shiro with SIGKILL while a
// tool of its turn runs, then continues the session with `shiro -c -p`:
// the request the continued run sends carries every step that completed
// before the kill, and the call that was cut off is answered (as
// interrupted), so no tool call is left without its result.
func TestKilledMidTurnThenContinued(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	stop := filepath.Join(work, "stop")
	// The long call waits for a file the test writes when it ends, so the
	// command the kill orphans does not outlive the test.
	long := `echo started; for i in $(seq 1200); do [ -e stop ] && break; sleep 0.1; done`
	srv := llmtest.New(t,
		llmtest.Reply{Text: "A quick look first.", ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "bash", Input: `{"command":"echo one"}`}},
			Usage: llmtest.Usage{InputTokens: 100, OutputTokens: 10}},
		llmtest.Reply{Text: "Now the long part.", ToolCalls: []llmtest.ToolCall{{ID: "c2", Name: "bash", Input: mustJSON(t, map[string]string{"command": long})}},
			Usage: llmtest.Usage{InputTokens: 120, OutputTokens: 12}},
		llmtest.Reply{Text: "Carrying on from where we were.", Usage: llmtest.Usage{InputTokens: 200, OutputTokens: 8}},
	)
	t.Cleanup(func() { _ = os.WriteFile(stop, nil, 0o644) })
	shiro := func(args ...string) *exec.Cmd {
		cmd := exec.Command("shiro", append(args, "--json", "--yolo", "--provider", "custom-anthropic", "--base-url", srv.URL, "--model", "m")...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "SHIRO_HOME="+home, "SHIRO_API_KEY=test-key")
		return cmd
	}

	first := shiro("-p", "do the work")
	var stderr strings.Builder
	first.Stderr = &stderr
	stdout, err := first.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	running := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), `{"type":"tool-output","id":"c2"`) && strings.Contains(sc.Text(), "started") {
				running <- nil
				drain(sc)
				return
			}
		}
		running <- errNoOutput{sc.Err()}
	}()
	select {
	case err := <-running:
		if err != nil {
			_ = first.Process.Kill()
			_ = first.Wait()
			t.Fatalf("the long call never started: %v\n%s", err, stderr.String())
		}
	case <-time.After(2 * time.Minute): // a failsafe against a hang, not a measure
		_ = first.Process.Kill()
		_ = first.Wait()
		t.Fatalf("the long call never started\n%s", stderr.String())
	}
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := first.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("first run ended with %v, want killed", err)
	}

	second := shiro("-c", "-p", "go on")
	out, err := second.CombinedOutput()
	if err != nil {
		t.Fatalf("shiro -c: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), `"text":"Carrying on from where we were."`) {
		t.Fatalf("the continued run did not answer:\n%s", out)
	}
	calls := srv.ModelCalls()
	if len(calls) != 3 {
		t.Fatalf("%d model calls, want 3", len(calls))
	}
	checkResumedRequest(t, calls[2].Body)
}

// checkResumedRequest checks the continued run's request: the prompt,
// both completed steps, every call answered right after it, and the new
// prompt last.
func checkResumedRequest(t *testing.T, body []byte) {
	t.Helper()
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type      string          `json:"type"`
				Text      string          `json:"text"`
				ID        string          `json:"id"`
				ToolUseID string          `json:"tool_use_id"`
				Content   json.RawMessage `json:"content"`
				IsError   bool            `json:"is_error"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("request: %v\n%s", err, body)
	}
	var script []string
	for i, m := range req.Messages {
		var calls []string
		for _, c := range m.Content {
			switch c.Type {
			case "text":
				script = append(script, m.Role+": "+c.Text)
			case "tool_use":
				script = append(script, m.Role+": call "+c.ID)
				calls = append(calls, c.ID)
			case "tool_result":
				result := string(c.Content)
				state := "ok"
				if c.IsError {
					state = "error"
				}
				if strings.Contains(result, "interrupted") {
					state = "interrupted"
				}
				script = append(script, m.Role+": result "+c.ToolUseID+" "+state)
			}
		}
		// Every call is answered in the very next message.
		for _, id := range calls {
			answered := false
			if i+1 < len(req.Messages) {
				for _, c := range req.Messages[i+1].Content {
					answered = answered || (c.Type == "tool_result" && c.ToolUseID == id)
				}
			}
			if !answered {
				t.Errorf("the call %s is not answered in the next message", id)
			}
		}
	}
	want := []string{
		"user: do the work",
		"assistant: A quick look first.",
		"assistant: call c1",
		"user: result c1 ok",
		"assistant: Now the long part.",
		"assistant: call c2",
		"user: result c2 interrupted",
		"user: go on",
	}
	if strings.Join(script, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the continued request:\n%s\nwant:\n%s", strings.Join(script, "\n"), strings.Join(want, "\n"))
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// drain reads the rest of a scanner so the child never blocks on a
// full pipe before it is killed.
func drain(sc *bufio.Scanner) {
	for sc.Scan() {
	}
}

type errNoOutput struct{ err error }

func (e errNoOutput) Error() string {
	if e.err != nil {
		return "stdout ended: " + e.err.Error()
	}
	return "stdout ended before the call's output"
}
