package headless_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/headless"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// A turn a spend ceiling stopped exits 3, with the notice that names the
// ceiling as one line on stderr.
func TestASpendCeilingExitsThree(t *testing.T) {
	s := newScripted([]protocol.Event{
		protocol.TextEvent{Text: "partial"},
		protocol.NoticeEvent{Text: `spend ceiling reached: … Raise "maxSpendUsd" in config.json to go on.`},
		protocol.DoneEvent{Reason: protocol.StopSpendLimit, Ceiling: "maxSpendUsd"},
	})
	var out, errb bytes.Buffer
	if code := headless.Run(t.Context(), s, headless.Prompt("x"), headless.Options{Out: &out, Err: &errb}); code != headless.ExitSpendLimit {
		t.Fatalf("code = %d, want 3", code)
	}
	if lines := strings.Split(strings.TrimSpace(errb.String()), "\n"); len(lines) != 1 || !strings.Contains(lines[0], `"maxSpendUsd"`) {
		t.Fatalf("stderr = %q, want one line naming the ceiling", errb.String())
	}
}
