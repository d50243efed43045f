// Package claudecode reads Claude Code's settings files
// (~/.claude/settings.json, .claude/settings.json and
// .claude/settings.local.json) so that a repository set up for Claude Code
// works in shiro unchanged. It is the one reader of those files: each
// consumer (permission rules here, hooks and the status line elsewhere)
// takes its key from the Settings it returns, and shiro's own trust rules
// decide what a project's file may do.
package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Scope says whose a settings file is, which decides what it may do: a
// user's file counts like the person's own config, a project's only
// tightens.
type Scope string

const (
	// ScopeUser: ~/.claude/settings.json.
	ScopeUser Scope = "user"
	// ScopeProject: .claude/settings.json, committed with the repository.
	ScopeProject Scope = "project"
	// ScopeLocal: .claude/settings.local.json, the person's own file in
	// the repository, which a clone may still ship, so it is treated as
	// the project's.
	ScopeLocal Scope = "local"
)

// Settings is one settings file as read. Only the keys shiro uses are
// decoded; the rest of the file is kept raw for later readers.
type Settings struct {
	// Path is the file, and Name how messages show it: `~/.claude/settings.json`
	// or `.claude/settings.json` (relative to the workspace).
	Path, Name string
	Scope      Scope
	// Permissions are the file's permission rules, as written.
	Permissions Permissions
	// Hooks and StatusLine are the raw values of those keys, for their
	// readers; nil when absent.
	Hooks      json.RawMessage
	StatusLine json.RawMessage
}

// Permissions is the "permissions" object: rules in Claude Code's syntax.
type Permissions struct {
	Allow []string `json:"allow"`
	Ask   []string `json:"ask"`
	Deny  []string `json:"deny"`
	// DefaultMode is the permission mode a session starts in
	// (StartMode).
	DefaultMode string `json:"defaultMode"`
}

// Locations lists the settings files in the order Claude Code layers
// them: the user's, the project's, the local one.
func Locations(home, workspace string) []Settings {
	return []Settings{
		{Path: filepath.Join(home, ".claude", "settings.json"), Name: "~/.claude/settings.json", Scope: ScopeUser},
		{Path: filepath.Join(workspace, ".claude", "settings.json"), Name: ".claude/settings.json", Scope: ScopeProject},
		{Path: filepath.Join(workspace, ".claude", "settings.local.json"), Name: ".claude/settings.local.json", Scope: ScopeLocal},
	}
}

// Load reads every settings file that exists. A file that is not valid
// JSON, or whose permissions are of the wrong shape, is an error naming
// it: skipping it would drop its deny rules without a word.
func Load(home, workspace string) ([]Settings, error) {
	var out []Settings
	seen := map[string]bool{}
	for _, loc := range Locations(home, workspace) {
		// Working in the home folder, the project's file is the user's:
		// read it once, as the user's.
		if seen[filepath.Clean(loc.Path)] {
			continue
		}
		seen[filepath.Clean(loc.Path)] = true
		s, ok, err := read(loc)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, s)
		}
	}
	return out, nil
}

// read fills loc from its file; ok is false when the file does not exist.
func read(loc Settings) (Settings, bool, error) {
	data, err := os.ReadFile(loc.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return loc, false, nil
	}
	if err != nil {
		return loc, false, fmt.Errorf("reading Claude Code settings: %w", err)
	}
	if err := decode(data, &loc); err != nil {
		return loc, false, fmt.Errorf("%s: %w; fix the file or move it aside", loc.Path, err)
	}
	return loc, true, nil
}

// decode reads a settings file's content into s.
func decode(data []byte, s *Settings) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil // an empty file says nothing
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return fmt.Errorf("not a JSON object: %w", err)
	}
	if raw, ok := top["permissions"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &s.Permissions); err != nil {
			return fmt.Errorf(`field "permissions": want {"allow": [...], "ask": [...], "deny": [...]} of strings and "defaultMode" a string: %w`, err)
		}
	}
	s.Hooks = top["hooks"]
	s.StatusLine = top["statusLine"]
	return nil
}
