package statusline

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func sampleInput() Input {
	return Input{
		HookEventName: "Status", SessionID: "s-1", Cwd: "/w", Model: Model{ID: "m", DisplayName: "M"},
		Workspace: Workspace{CurrentDir: "/w", ProjectDir: "/w"}, Version: "1.2",
		Cost:           Cost{TotalCostUSD: 0.5, TotalDurationMs: 1500, TotalLinesAdded: 3, TotalLinesRemoved: 1},
		PermissionMode: "default", Context: Context{UsedTokens: 10, WindowTokens: 100, UsedPercent: 10}, Agent: "quick",
	}
}

// The command reads the session as Claude Code's JSON, shiro's fields
// after, byte for byte.
func TestCommandReadsTheSessionOnStdin(t *testing.T) {
	dir := t.TempDir()
	got := filepath.Join(dir, "stdin.json")
	r := Runner{Command: "cat > " + got + "; echo shown", Dir: dir, Env: []string{"PATH=/usr/bin:/bin"}}
	line, err := r.Run(t.Context(), sampleInput())
	if err != nil || line != "shown" {
		t.Fatalf("Run = %q, %v", line, err)
	}
	data, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"hook_event_name":"Status","session_id":"s-1","transcript_path":"","cwd":"/w",` +
		`"model":{"id":"m","display_name":"M"},"workspace":{"current_dir":"/w","project_dir":"/w"},"version":"1.2",` +
		`"cost":{"total_cost_usd":0.5,"total_duration_ms":1500,"total_lines_added":3,"total_lines_removed":1},` +
		`"permission_mode":"default","context":{"used_tokens":10,"window_tokens":100,"used_percent":10},"agent":"quick"}`
	if string(data) != want {
		t.Fatalf("stdin:\n%s\nwant:\n%s", data, want)
	}
}

// Only the first line shows; the environment is the one given.
func TestFirstLineOfOutputAndGivenEnvironment(t *testing.T) {
	r := Runner{Command: `printf '%s\nsecond\n' "$ONLY"`, Dir: t.TempDir(), Env: []string{"ONLY=first", "PATH=/usr/bin:/bin"}}
	line, err := r.Run(t.Context(), Input{})
	if err != nil || line != "first" {
		t.Fatalf("Run = %q, %v", line, err)
	}
}

// A command that takes too long is stopped at the limit and said to have
// timed out; one that fails says its status and its last stderr line.
func TestTimeoutAndFailure(t *testing.T) {
	slow := Runner{Command: "exec sleep 30", Dir: t.TempDir(), Timeout: 200 * time.Millisecond}
	if _, err := slow.Run(t.Context(), Input{}); !errors.Is(err, ErrTimedOut) {
		t.Fatalf("slow command: %v, want a timeout", err)
	}
	bad := Runner{Command: "echo half; echo 'no such thing' >&2; exit 3", Dir: t.TempDir()}
	_, err := bad.Run(t.Context(), Input{})
	if err == nil || !strings.Contains(err.Error(), "status 3: no such thing") {
		t.Fatalf("failing command: %v", err)
	}
}

// Colours stay; what would move the cursor, retitle the window or ring
// the bell goes; a colour left on is closed.
func TestFirstLineKeepsOnlyColours(t *testing.T) {
	for _, c := range []struct{ out, want string }{
		{"plain\nmore", "plain"},
		{"\x1b[32mgreen\x1b[0m rest\n", "\x1b[32mgreen\x1b[0m rest\x1b[m"},
		{"a\x1b[2Jb\x1b[10;1Hc", "abc"},
		{"\x1b]0;title\x07x\x07y", "xy"},
		{"tab\there\r\n", "tab here"},
		{"", ""},
	} {
		if got := FirstLine([]byte(c.out)); got != c.want {
			t.Errorf("FirstLine(%q) = %q, want %q", c.out, got, c.want)
		}
	}
}
