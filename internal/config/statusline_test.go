package config_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/config"
)

// statusLine takes Claude Code's object, shiro's timeoutMs beside it, or
// the command alone; a wrong value names the member and what to write.
func TestStatusLineShapes(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want *config.StatusLine
		err  string
	}{
		{``, nil, ""},
		{`null`, nil, ""},
		{`"~/bin/line.sh"`, &config.StatusLine{Command: "~/bin/line.sh"}, ""},
		{`{"type":"command","command":"line.sh","padding":2}`, &config.StatusLine{Command: "line.sh", Padding: 2}, ""},
		{`{"command":"line.sh","timeoutMs":500,"refresh":3}`, &config.StatusLine{Command: "line.sh", Timeout: 500 * time.Millisecond}, ""},
		{`{"type":"static","command":"x"}`, nil, `"type" is "static"`},
		{`{"type":"command"}`, nil, `"command" is missing`},
		{`{"command":"  "}`, nil, `"command" is empty`},
		{`""`, nil, `"command" is empty`},
		{`{"command":"x","padding":-1}`, nil, `"padding" must be between 0 and 40`},
		{`{"command":"x","padding":"2"}`, nil, `"padding" should be a number, not a JSON string`},
		{`{"command":"x","timeoutMs":60000}`, nil, `"timeoutMs" must be between 100 and 10000`},
		{`[1]`, nil, `want {"type": "command"`},
	} {
		got, err := config.ParseStatusLine(json.RawMessage(c.raw))
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err %v, want %q", c.raw, err, c.err)
			}
		case err != nil:
			t.Errorf("%s: %v", c.raw, err)
		case (got == nil) != (c.want == nil) || (got != nil && *got != *c.want):
			t.Errorf("%s: got %+v, want %+v", c.raw, got, c.want)
		}
	}
}

// In config.json a bad statusLine or notifications is an error naming
// the file and the field; the user's notifications counts, a project's
// is ignored with a warning, and a project's status line is kept apart
// (it runs only once approved).
func TestStatusLineAndNotificationsKeys(t *testing.T) {
	if _, _, err := config.Parse("config.json", []byte(`{"statusLine":{"type":"command"}}`)); err == nil ||
		!strings.Contains(err.Error(), `config.json: field "statusLine": "command" is missing`) {
		t.Errorf("bad statusLine: %v", err)
	}
	if _, _, err := config.Parse("config.json", []byte(`{"notifications":"loud"}`)); err == nil ||
		!strings.Contains(err.Error(), `config.json: field "notifications": "loud" is not one of off, auto, always, osc9, osc777, notify-send`) {
		t.Errorf("bad notifications: %v", err)
	}
	user, warns, err := config.Parse("config.json", []byte(`{"statusLine":"mine.sh","notifications":"osc777"}`))
	if err != nil || len(warns) > 0 {
		t.Fatal(warns, err)
	}
	project, _, err := config.Parse(".shiro/config.json", []byte(`{"statusLine":{"command":"theirs.sh"},"notifications":"off"}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := config.Resolve(user, project, env(nil), config.Flags{})
	if err != nil {
		t.Fatal(err)
	}
	if s.StatusLine == nil || s.StatusLine.Command != "mine.sh" || s.ProjectStatusLine == nil || s.ProjectStatusLine.Command != "theirs.sh" {
		t.Errorf("status lines: %+v %+v", s.StatusLine, s.ProjectStatusLine)
	}
	if s.Notifications != "osc777" || !strings.Contains(strings.Join(s.Warnings, "\n"), "notifications can only be set in your own config") {
		t.Errorf("notifications %q, warnings %v", s.Notifications, s.Warnings)
	}
	if s, _ := config.Resolve(config.File{}, config.File{}, env(nil), config.Flags{}); s.Notifications != "auto" || s.StatusLine != nil {
		t.Errorf("defaults: %q %+v", s.Notifications, s.StatusLine)
	}
}
