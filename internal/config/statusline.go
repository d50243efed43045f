package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// StatusLine is a status line command: the `statusLine` key of shiro's
// config and of Claude Code's settings, which share its shape.
type StatusLine struct {
	// Command is run by the shell; the first line it prints replaces the
	// built-in status line.
	Command string
	// Padding is how many spaces go before its line.
	Padding int
	// Timeout is how long one run may take; zero means the default.
	Timeout time.Duration
}

// statusLineMaxPadding and the time limit's range keep a typo from
// pushing the line off screen or making every run hang for minutes.
const (
	statusLineMaxPadding = 40
	statusLineMinTimeout = 100 * time.Millisecond
	statusLineMaxTimeout = 10 * time.Second
)

// ParseStatusLine reads a `statusLine` value: Claude Code's
// {"type": "command", "command": "…", "padding": 0}, with shiro's
// "timeoutMs" beside them, or the command alone as a string. Absent or
// null is (nil, nil). Members it does not know are ignored, since Claude
// Code may add some; a member it knows with a wrong value is an error
// naming it.
func ParseStatusLine(raw json.RawMessage) (*StatusLine, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var line string
	if json.Unmarshal(raw, &line) == nil {
		return checkStatusLine(StatusLine{Command: line})
	}
	var obj struct {
		Type      *string `json:"type"`
		Command   *string `json:"command"`
		Padding   *int    `json:"padding"`
		TimeoutMs *int    `json:"timeoutMs"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return nil, fmt.Errorf("%q should be %s, not a JSON %s", te.Field, typeName(te.Type.String()), te.Value)
		}
		return nil, errors.New(`want {"type": "command", "command": "…"} or the command as a string`)
	}
	if obj.Type != nil && *obj.Type != "command" {
		return nil, fmt.Errorf(`"type" is %q; the only type is "command"`, *obj.Type)
	}
	if obj.Command == nil {
		return nil, errors.New(`"command" is missing: write the command to run, e.g. {"type": "command", "command": "~/.claude/statusline.sh"}`)
	}
	s := StatusLine{Command: *obj.Command}
	if obj.Padding != nil {
		if *obj.Padding < 0 || *obj.Padding > statusLineMaxPadding {
			return nil, fmt.Errorf(`"padding" must be between 0 and %d`, statusLineMaxPadding)
		}
		s.Padding = *obj.Padding
	}
	if obj.TimeoutMs != nil {
		s.Timeout = time.Duration(*obj.TimeoutMs) * time.Millisecond
		if s.Timeout < statusLineMinTimeout || s.Timeout > statusLineMaxTimeout {
			return nil, fmt.Errorf(`"timeoutMs" must be between %d and %d`, statusLineMinTimeout.Milliseconds(), statusLineMaxTimeout.Milliseconds())
		}
	}
	return checkStatusLine(s)
}

func checkStatusLine(s StatusLine) (*StatusLine, error) {
	if strings.TrimSpace(s.Command) == "" {
		return nil, errors.New(`"command" is empty: write the command to run`)
	}
	return &s, nil
}

// NotificationModes are the values of the `notifications` key: off, auto
// (the terminal's own way when it has one, else notify-send; only while
// the terminal is known not to have focus), always (the same, focus or
// not), or one method forced.
func NotificationModes() []string {
	return []string{"off", "auto", "always", "osc9", "osc777", "notify-send"}
}

func checkNotifications(name, mode string) error {
	if mode == "" || slices.Contains(NotificationModes(), mode) {
		return nil
	}
	return fmt.Errorf("%s: field \"notifications\": %q is not one of %s", name, mode, strings.Join(NotificationModes(), ", "))
}

// applyStatusLine takes the user's status line and the project's, which
// runs only once the person approves its command (app decides), and the
// user's notifications; a project's notifications is ignored with a
// warning, since how the person's desktop is told is theirs.
func (s *Settings) applyStatusLine(user, project File) {
	s.StatusLine, _ = ParseStatusLine(user.StatusLine) // checked by Parse
	s.ProjectStatusLine, _ = ParseStatusLine(project.StatusLine)
	s.Notifications = "auto"
	if user.Notifications != "" {
		s.Notifications = user.Notifications
	}
	if project.Notifications != "" {
		s.Warnings = append(s.Warnings, "project config: notifications can only be set in your own config (~/.shiro-neko/config.json); ignored")
	}
}
