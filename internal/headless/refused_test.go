package headless_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/headless"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// A refusal nobody could allow is in the JSON events and, in every format,
// one stderr line naming what was refused and how to allow it.
func TestASandboxRefusalIsReportedOnStderr(t *testing.T) {
	ev := protocol.SandboxRefusedEvent{CallID: "c1", Name: "bash",
		Refusal: protocol.SandboxRefusal{Path: "/h/.cache/x", Shown: "~/.cache/x"},
		Allow:   "add ~/.cache/x to sandbox.writable in /h/.shiro-neko/config.json, or pass --sandbox off"}
	for _, format := range []headless.Format{headless.FormatStreamJSON, headless.FormatText, headless.FormatJSON} {
		var out, errOut bytes.Buffer
		headless.Run(t.Context(), newScripted([]protocol.Event{ev}), headless.Prompt("x"), headless.Options{Format: format, Out: &out, Err: &errOut})
		want := "[sandbox] bash was refused writing ~/.cache/x; to allow it: add ~/.cache/x to sandbox.writable"
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("%s: stderr = %q", format, errOut.String())
		}
		if format == headless.FormatStreamJSON && !strings.Contains(out.String(), `{"type":"sandbox-refused","callId":"c1","name":"bash","refusal":{"path":"/h/.cache/x","shown":"~/.cache/x"}`) {
			t.Errorf("stdout = %s", out.String())
		}
	}
}
