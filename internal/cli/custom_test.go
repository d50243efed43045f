package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm/llmtest"
)

// A custom command from .claude/commands works in headless mode: `shiro
// -p "/name args"` sends its expanded prompt to the model and prints the
// answer.
func TestHeadlessRunsACustomCommand(t *testing.T) {
	srv := llmtest.New(t, llmtest.Reply{Text: "Reviewed in headless."})
	work, home := t.TempDir(), t.TempDir()
	writeTree(t, home, map[string]string{".shiro-neko/config.json": fmt.Sprintf(
		`{"provider":"custom-openai","baseURL":%q,"apiKey":"k","model":"fake"}`, srv.URL)})
	writeTree(t, work, map[string]string{
		".claude/commands/frontend/review.md": "---\ndescription: Review a file\nargument-hint: [file] [focus]\n---\nReview $1 for $2, then say so.\n",
	})
	code, stdout, stderr := runIn(t, work, home, "-p", "/frontend:review src/app.go speed")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "Reviewed in headless.") {
		t.Fatalf("stdout = %q, stderr = %q", stdout, stderr)
	}
	calls := srv.ModelCalls()
	if len(calls) != 1 || !strings.Contains(string(calls[0].Body), "Review src/app.go for speed, then say so.") {
		t.Fatalf("the command's prompt did not reach the model: %+v", calls)
	}
}
