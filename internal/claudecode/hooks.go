package claudecode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/shiro-neko/shiro/internal/problem"
)

// Hook is one command of a settings file's "hooks" key, in Claude Code's
// terms; package hooks runs it.
type Hook struct {
	// File is the settings file it came from, as read (Path, Name, Scope).
	File Settings
	// Event is Claude Code's event name, such as "PreToolUse".
	Event string
	// Matcher is the group's regular expression over Claude Code's tool
	// names; "" and "*" match every tool.
	Matcher string
	Command string
	// Timeout is the entry's "timeout"; zero when it gives none.
	Timeout time.Duration
	// Where is the entry's place in the file, such as
	// hooks.PreToolUse[0].hooks[1], for messages and as its identity.
	Where string
}

// Events are the hook events Claude Code documents, which shiro runs.
func Events() []string {
	return []string{"PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop",
		"SessionStart", "SessionEnd", "PreCompact", "Notification"}
}

// maxHookTimeout bounds a hook's "timeout": Claude Code takes any number
// of seconds, but a hook that may hold a call for more than ten minutes is
// a mistake.
const maxHookTimeout = 600

// group and command are the shapes of the "hooks" value.
type group struct {
	Matcher *string   `json:"matcher"`
	Hooks   []command `json:"hooks"`
}

type command struct {
	Type    string   `json:"type"`
	Command string   `json:"command"`
	Timeout *float64 `json:"timeout"`
}

// Hooks reads the "hooks" of each settings file, in the files' order and,
// within a file, in its order. A value of the wrong shape is an error that
// names the file and field: dropping it would drop a guard without a word.
// An event or hook type shiro does not run is reported and left out.
func Hooks(files []Settings) ([]Hook, []problem.Problem, error) {
	var out []Hook
	var problems []problem.Problem
	for _, f := range files {
		raw := bytes.TrimSpace(f.Hooks)
		if len(raw) == 0 || string(raw) == "null" {
			continue
		}
		var events map[string]json.RawMessage
		if err := json.Unmarshal(raw, &events); err != nil {
			return nil, nil, fmt.Errorf(`%s: field "hooks": want {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "…"}]}], …}: %w`, f.Path, err)
		}
		names := make([]string, 0, len(events))
		for name := range events {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, event := range names {
			if !known(event) {
				problems = append(problems, hookProblem(f.Name, "hooks."+event,
					fmt.Sprintf("shiro runs no such event, so its hooks are not loaded (events: %s)", strings.Join(Events(), ", "))))
				continue
			}
			hooks, skipped, err := eventHooks(f, event, events[event])
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w; fix the file or move it aside", f.Path, err)
			}
			out = append(out, hooks...)
			problems = append(problems, skipped...)
		}
	}
	return out, problems, nil
}

// hookProblem reports an entry of a settings file's hooks that was left
// out.
func hookProblem(file, where, why string) problem.Problem {
	return problem.Problem{Kind: "hook", Where: file, Err: where + ": " + why}
}

func known(event string) bool {
	for _, e := range Events() {
		if e == event {
			return true
		}
	}
	return false
}

// eventHooks reads one event's list of matcher groups.
func eventHooks(f Settings, event string, raw json.RawMessage) ([]Hook, []problem.Problem, error) {
	var groups []group
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&groups); err != nil {
		return nil, nil, fmt.Errorf(`field "hooks.%s": want a list of {"matcher": "…", "hooks": [{"type": "command", "command": "…", "timeout": 60}]}: %w`, event, err)
	}
	var out []Hook
	var problems []problem.Problem
	for i, g := range groups {
		matcher := ""
		if g.Matcher != nil {
			matcher = strings.TrimSpace(*g.Matcher)
		}
		for j, c := range g.Hooks {
			where := fmt.Sprintf("hooks.%s[%d].hooks[%d]", event, i, j)
			if c.Type != "command" {
				problems = append(problems, hookProblem(f.Name, where,
					fmt.Sprintf(`%q: shiro runs only hooks of "type": "command", so this one is not loaded`, c.Type)))
				continue
			}
			if strings.TrimSpace(c.Command) == "" {
				return nil, nil, fmt.Errorf(`field %q: "command" is empty; write the command to run`, where)
			}
			h := Hook{File: f, Event: event, Matcher: matcher, Command: c.Command, Where: where}
			if c.Timeout != nil {
				secs := *c.Timeout
				if secs <= 0 || secs > maxHookTimeout {
					return nil, nil, fmt.Errorf(`field "%s.timeout": must be seconds from 1 to %d, got %v`, where, maxHookTimeout, secs)
				}
				h.Timeout = time.Duration(secs * float64(time.Second))
			}
			out = append(out, h)
		}
	}
	return out, problems, nil
}
