package tui

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// keyCell splits the first cell of a key table row into key names.
var keyCell = regexp.MustCompile(`\s*(?:,|/|\(|\))\s*`)

// docs/tui.md lists every key /help lists and every command the UI runs
// itself (internal/docstest checks the session's commands): /help and the
// page cannot drift apart.
func TestDocsListEveryKeyAndUICommand(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "tui.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	documented := map[string]bool{}
	for _, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(line, "| ") {
			continue
		}
		first := strings.TrimSpace(strings.Split(line, "|")[1])
		for _, k := range keyCell.Split(first, -1) {
			documented[strings.TrimSpace(k)] = true
		}
	}
	for _, row := range keyHelp() {
		for _, k := range keyCell.Split(row[0], -1) {
			if k = strings.TrimSpace(k); k != "" && !documented[k] {
				t.Errorf("/help lists the key %q (%s), which no key table in docs/tui.md has", k, row[1])
			}
		}
	}
	help, copyAnswer, exit := uiCommands()
	for _, c := range []command{help, copyAnswer, exit} {
		for _, name := range append([]string{c.name}, c.aliases...) {
			if !strings.Contains(doc, "`/"+name+"`") && !strings.Contains(doc, "`/"+name+" ") {
				t.Errorf("docs/tui.md does not name /%s", name)
			}
		}
	}
}
