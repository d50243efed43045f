package diagnostics_test

import (
	"strings"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/diagnostics"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

// waitLimit only bounds a failure; a passing test never waits it out.
const waitLimit = 60 * time.Second

func next(t *testing.T, reports chan diagnostics.Report) diagnostics.Report {
	t.Helper()
	select {
	case r := <-reports:
		return r
	case <-time.After(waitLimit):
		t.Fatal("no report")
		return diagnostics.Report{}
	}
}

// A check runs in the workspace and its end is reported with the tail of
// its output; a stopped one says so; auto re-runs it after a change.
func TestChecksReportTheirEnd(t *testing.T) {
	env := wstest.Env(t, map[string]string{"marker.txt": "here\n"})
	reports := make(chan diagnostics.Report, 4)
	r := diagnostics.New(env, func(rep diagnostics.Report) { reports <- rep })
	if err := r.Rerun(); err == nil {
		t.Fatal("rerun with no check set")
	}
	if err := r.Run("cat marker.txt; echo oops >&2; exit 3"); err != nil {
		t.Fatal(err)
	}
	rep := next(t, reports)
	if rep.Exit != 3 || rep.Stopped || rep.Output != "here\noops\n" || rep.Summary() != "diagnostics: cat marker.txt; echo oops >&2; exit 3 failed (exit 3)" {
		t.Fatalf("report = %+v", rep)
	}
	if err := r.Run("exec sleep 300"); err != nil {
		t.Fatal(err)
	}
	if !r.Status().Running || !r.Stop() {
		t.Fatal("the check was not running")
	}
	if rep := next(t, reports); !rep.Stopped || rep.Summary() != "diagnostics: exec sleep 300 was stopped" {
		t.Fatalf("report = %+v", rep)
	}
	if err := r.Run("true"); err != nil {
		t.Fatal(err)
	}
	next(t, reports)
	r.AfterChange() // auto is off
	r.SetAuto(true)
	r.AfterChange()
	if rep := next(t, reports); rep.Summary() != "diagnostics: true passed" {
		t.Fatalf("report = %+v", rep)
	}
	select {
	case extra := <-reports:
		t.Fatalf("AfterChange ran the check with auto off: %+v", extra)
	default:
	}
	if st := r.Status(); st.Running || !st.Auto || st.Last == nil || st.Command != "true" {
		t.Fatalf("status = %+v", st)
	}
}

// Only the end of a long output is kept.
func TestOutputIsATail(t *testing.T) {
	env := wstest.Env(t, nil)
	reports := make(chan diagnostics.Report, 1)
	r := diagnostics.New(env, func(rep diagnostics.Report) { reports <- rep })
	if err := r.Run("head -c 30000 /dev/zero | tr '\\0' a; echo END"); err != nil {
		t.Fatal(err)
	}
	rep := next(t, reports)
	if !rep.Cut || len(rep.Output) != diagnostics.TailBytes || !strings.HasSuffix(rep.Output, "aaEND\n") {
		t.Fatalf("cut %v, %d bytes, ends %q", rep.Cut, len(rep.Output), rep.Output[len(rep.Output)-8:])
	}
}
