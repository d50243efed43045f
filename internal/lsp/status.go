package lsp

import (
	"fmt"
	"strings"
	"time"
)

// Describe is /lsp's report: each server the session has, its state and
// the files it was asked about.
func Describe(list []Status) string {
	if len(list) == 0 {
		return "lsp: no language server for this workspace (none of gopls, typescript-language-server, pyright, rust-analyzer, clangd is on PATH with files here, and config lsp adds none); find_symbol and outline navigate by pattern"
	}
	var b strings.Builder
	b.WriteString("lsp: language servers of this session (started on the first edit or lookup of a file they answer for)")
	for _, s := range list {
		fmt.Fprintf(&b, "\n%s: %s — %s", s.Name, s.State, strings.Join(s.Files, " "))
		fmt.Fprintf(&b, "\n  command: %s", s.Command)
		if s.PID != 0 {
			fmt.Fprintf(&b, "\n  pid %d, started in %s", s.PID, s.Startup.Round(time.Millisecond))
		}
		if s.Restarts > 0 {
			fmt.Fprintf(&b, "\n  restarted %d time(s)", s.Restarts)
		}
		if s.Failure != "" {
			fmt.Fprintf(&b, "\n  %s", s.Failure)
		}
		if len(s.Opened) > 0 {
			fmt.Fprintf(&b, "\n  files: %s", strings.Join(s.Opened, ", "))
		}
	}
	return b.String()
}

// Plan is `shiro lsp`'s report for a workspace, without starting
// anything: every known server, and whether a session here would run it.
func Plan(root string, specs []Spec, lookPath func(string) (string, error)) string {
	avail := Detect(root, specs, lookPath)
	var b strings.Builder
	fmt.Fprintf(&b, "language servers for %s:", root)
	for _, s := range specs {
		state := ""
		switch path := s.resolve(lookPath); {
		case s.Disabled:
			state = "disabled (config lsp." + s.Name + ".disabled)"
		case path == "":
			state = "not installed: " + s.Command + " is not on PATH"
		case !isAvailable(avail, s.Name):
			state = "installed (" + path + "), no " + strings.Join(s.Files, " ") + " files here"
		default:
			state = "will run (" + path + ") on the first edit or lookup of a " + strings.Join(s.Files, " ") + " file"
		}
		fmt.Fprintf(&b, "\n%-14s %s", s.Name, state)
	}
	if len(avail) == 0 {
		b.WriteString("\nNo server for this workspace: sessions here offer no language-server tools.")
	}
	return b.String() + "\n"
}

func isAvailable(list []Available, name string) bool {
	for _, a := range list {
		if a.Name == name {
			return true
		}
	}
	return false
}
