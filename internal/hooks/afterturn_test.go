//go:build unix

package hooks

import (
	"context"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/tool"
)

func TestAfterTurnReceivesTheSummary(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	stdin := f.evidence("summary")
	f.hook("notify", KindAfterTurn, []string{"*"}, "cat > "+stdin+"\necho 'output is ignored'")
	r := f.approved("notify")

	errs := r.AfterTurn(context.Background(), tool.TurnSummary{
		Cwd:          f.project,
		ToolsCalled:  []string{"read_file", "bash"},
		FilesWritten: []string{"main.go"},
		Usage:        llm.Usage{InputTokens: 120, OutputTokens: 30, CacheReadTokens: 1000, CacheWriteTokens: 5},
	})

	if len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	want := `{"version":1,"event":"after_turn","cwd":"` + f.project + `","session_id":"session-1",` +
		`"tools_called":["read_file","bash"],"files_written":["main.go"],` +
		`"usage":{"input_tokens":120,"output_tokens":30,"cache_read_tokens":1000,"cache_write_tokens":5}}`
	if got := f.read(stdin); got != want {
		t.Errorf("stdin =\n%s\nwant\n%s", got, want)
	}
}

func TestAfterTurnEmptyListsAreArrays(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	stdin := f.evidence("summary")
	f.hook("notify", KindAfterTurn, []string{"*"}, "cat > "+stdin)
	errs := f.approved("notify").AfterTurn(context.Background(), tool.TurnSummary{Cwd: f.project})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	if got := f.read(stdin); !strings.Contains(got, `"tools_called":[],"files_written":[]`) {
		t.Errorf("stdin = %s", got)
	}
}

// Failures are returned for the caller to show; the other hooks still run.
func TestAfterTurnFailuresAreReported(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ran := f.evidence("c-ran")
	f.hook("a-fails", KindAfterTurn, []string{"*"}, `echo 'disk full' >&2; exit 2`)
	f.hook("b-pending", KindAfterTurn, []string{"*"}, `exit 0`)
	f.hook("c-works", KindAfterTurn, []string{"*"}, "touch "+ran)
	r := f.approved("a-fails", "c-works")

	errs := r.AfterTurn(context.Background(), tool.TurnSummary{Cwd: f.project})

	if len(errs) != 2 {
		t.Fatalf("errors = %v, want two", errs)
	}
	if msg := errs[0].Error(); !strings.Contains(msg, `hook "a-fails" exited with status 2: disk full`) {
		t.Errorf("first error = %q", msg)
	}
	if msg := errs[1].Error(); !strings.Contains(msg, `hook "b-pending"`) || !strings.Contains(msg, "is not approved") {
		t.Errorf("second error = %q", msg)
	}
	if !f.exists(ran) {
		t.Error("a later hook did not run after a failure")
	}
}

func TestAfterTurnStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ran := f.evidence("ran")
	f.hook("notify", KindAfterTurn, []string{"*"}, "touch "+ran)
	r := f.approved("notify")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()

	errs := r.AfterTurn(ctx, tool.TurnSummary{})

	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "stopped") || f.exists(ran) {
		t.Errorf("errors = %v, ran = %v", errs, f.exists(ran))
	}
}
