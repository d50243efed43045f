package acp

import (
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/coder/acp-go-sdk"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// outputLimit bounds the output of one call kept for the client: each
// update carries it whole, so a chatty command must not grow it forever.
const outputLimit = 32 << 10

// cutMarker starts output whose beginning was dropped.
const cutMarker = "… (earlier output cut)\n"

// keepTail keeps the last limit bytes of s, cut at a character boundary.
func keepTail(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	s = strings.TrimPrefix(s, cutMarker)
	cut := len(s) - limit
	for cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut++
	}
	return cutMarker + s[cut:]
}

// textContent is one text item of a call's content; none for no text.
func textContent(s string) []acp.ToolCallContent {
	if s == "" {
		return nil
	}
	return []acp.ToolCallContent{acp.ToolContent(acp.TextBlock(s))}
}

// verbatim fences text so that an editor rendering Markdown shows command
// output as it was printed. The fence is longer than any run of backticks
// inside.
func verbatim(text string) string {
	if text == "" {
		return ""
	}
	fence := strings.Repeat("`", max(3, longestRun(text, '`')+1))
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return fence + "\n" + text + fence
}

func longestRun(s string, c byte) int {
	best, run := 0, 0
	for i := range len(s) {
		if s[i] == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

// paragraph sets a notice apart from the answer it interrupts.
func paragraph(text string) string {
	return "\n\n" + strings.TrimSpace(text) + "\n\n"
}

// absPath resolves a workspace path against the session's root: ACP wants
// absolute paths.
func absPath(cwd, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(cwd, p)
}

func locations(cwd string, paths []string) []acp.ToolCallLocation {
	if len(paths) == 0 {
		return nil
	}
	out := make([]acp.ToolCallLocation, len(paths))
	for i, p := range paths {
		out[i] = acp.ToolCallLocation{Path: absPath(cwd, p)}
	}
	return out
}

// diffContent shows a change the way editors review it: the whole text
// before and after. A change too large to carry whole travels as its
// unified diff.
func diffContent(cwd string, d *protocol.Diff) []acp.ToolCallContent {
	path := absPath(cwd, d.Path)
	if d.Truncated {
		return textContent(path + " is too large to show whole; the change:\n\n" + verbatim(d.Unified))
	}
	if d.Before == "" {
		// No old text is how ACP marks a new file.
		return []acp.ToolCallContent{acp.ToolDiffContent(path, d.After)}
	}
	return []acp.ToolCallContent{acp.ToolDiffContent(path, d.After, d.Before)}
}

// toolKind maps shiro's kinds, which are ACP's, and defaults to other.
func toolKind(k protocol.ToolKind) acp.ToolKind {
	switch k {
	case protocol.KindRead, protocol.KindEdit, protocol.KindDelete, protocol.KindMove, protocol.KindSearch,
		protocol.KindExecute, protocol.KindThink, protocol.KindFetch:
		return acp.ToolKind(k)
	}
	return acp.ToolKindOther
}

// callTitle is the tool's name and the call's key argument.
func callTitle(title, name string) string {
	if title == "" {
		return name
	}
	return name + " " + title
}

// planEntries is the task list as an ACP plan. ACP has no blocked status:
// a blocked task stays pending, marked as blocked.
func planEntries(tasks []protocol.Task) []acp.PlanEntry {
	out := make([]acp.PlanEntry, len(tasks))
	for i, t := range tasks {
		e := acp.PlanEntry{Content: t.Content, Priority: acp.PlanEntryPriorityMedium, Status: acp.PlanEntryStatusPending}
		switch t.Status {
		case "in_progress":
			e.Status = acp.PlanEntryStatusInProgress
		case "done":
			e.Status = acp.PlanEntryStatusCompleted
		case "blocked":
			e.Content += " (blocked)"
		}
		if t.Note != "" {
			e.Content += " — " + t.Note
		}
		out[i] = e
	}
	return out
}
