package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm/llmtest"
)

// A provider that accepts the request and never answers used to hang a
// headless run for the transport's ten minutes, silently. Now the run
// gives up after provider.idleTimeoutSeconds and says so in one line.
func TestHeadlessGivesUpOnASilentProvider(t *testing.T) {
	stall := llmtest.Reply{Text: "never sent", Fault: llmtest.Fault{Kind: llmtest.StallHeaders}}
	srv := llmtest.New(t, stall)
	work, home := t.TempDir(), t.TempDir()
	writeTree(t, home, map[string]string{".shiro-neko/config.json": fmt.Sprintf(
		`{"provider":{"id":"custom-openai","idleTimeoutSeconds":1},"baseURL":%q,"apiKey":"k","model":"fake","maxRetries":0}`, srv.URL)})
	code, stdout, stderr := runIn(t, work, home, "-p", "hello")
	if code == 0 {
		t.Fatalf("exit 0 from a provider that never answered; stdout %q", stdout)
	}
	var reported []string
	for _, line := range strings.Split(stderr, "\n") {
		if strings.Contains(line, "provider.idleTimeoutSeconds") {
			reported = append(reported, line)
		}
	}
	if len(reported) != 1 || !strings.Contains(reported[0], "no answer 1s after sending the request") {
		t.Fatalf("want one line naming the silence and the setting, stderr:\n%s", stderr)
	}
	if n := len(srv.ModelCalls()); n != 1 {
		t.Fatalf("%d model calls, want 1 (maxRetries 0)", n)
	}
}
