package headless_test

import (
	"bytes"
	"testing"

	"github.com/shiro-neko/shiro/internal/headless"
	"github.com/shiro-neko/shiro/internal/protocol"
)

func TestAPromptThatIsACommandLineRunsTheCommand(t *testing.T) {
	for text, command := range map[string]bool{
		"/cost":                   true,
		"  /resume 3f2a  ":        true,
		"/init no-scaffold":       true,
		"/git:commit tidy":        true,
		"/etc/hosts looks wrong":  false,
		"/ is the root":           false,
		"what does /cost show?":   false,
		"/usr/bin/env is missing": false,
		"/":                       false,
	} {
		if got := headless.IsCommandLine(text); got != command {
			t.Errorf("IsCommandLine(%q) = %v, want %v", text, got, command)
		}
	}
	result := protocol.CommandResultEvent{Command: "sessions", Output: "a1  one\nb2  two",
		Choices: []protocol.Choice{{Label: "a1  one", Line: "/resume a1"}}}
	s := newScripted()
	s.onOp = func(s *scripted, op protocol.Op) {
		if _, ok := op.(protocol.Command); ok {
			s.events <- result
		}
	}
	var out, errb bytes.Buffer
	if code := headless.Run(t.Context(), s, headless.Prompt(" /sessions "), headless.Options{Out: &out, Err: &errb}); code != 0 {
		t.Fatalf("code %d, stderr %s", code, errb.String())
	}
	if ops := s.submitted(); len(ops) != 2 || ops[0] != (protocol.Command{Line: "/sessions"}) {
		t.Fatalf("ops %#v", ops)
	}
	if out.String() != "a1  one\nb2  two\n  /resume a1  — a1  one\n" {
		t.Fatalf("stdout %q", out.String())
	}
}

func TestAFailedCommandExitsOne(t *testing.T) {
	s := newScripted()
	s.onOp = func(s *scripted, op protocol.Op) {
		if _, ok := op.(protocol.Command); ok {
			s.events <- protocol.CommandResultEvent{Command: "resume", Error: "no such session"}
		}
	}
	var out, errb bytes.Buffer
	code := headless.Run(t.Context(), s, headless.Prompt("/resume zz"), headless.Options{Format: headless.FormatStreamJSON, Out: &out, Err: &errb})
	if code != 1 {
		t.Fatalf("code %d", code)
	}
	if out.String() != `{"type":"command-result","command":"resume","output":"","error":"no such session"}`+"\n" {
		t.Fatalf("stdout %q", out.String())
	}
}
