package proc

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// explainingLauncher runs commands as they are and blames "denied" on
// itself, recording what it was shown.
type explainingLauncher struct {
	mu     sync.Mutex
	execs  []Exec
	shown  []string
	answer string
}

func (l *explainingLauncher) Launch(x Exec) (Exec, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.execs = append(l.execs, x)
	return x, nil
}

func (l *explainingLauncher) Explain(exit Exit, output []byte) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.shown = append(l.shown, string(output))
	if exit.Success() || !strings.Contains(string(output), "denied") {
		return ""
	}
	return l.answer
}

func TestAnExplainerAppendsItsLineToStderr(t *testing.T) {
	t.Parallel()
	l := &explainingLauncher{answer: "the sandbox did it"}
	stdout, stderr := newCollector(), newCollector()
	res := mustRun(t, Spec{
		Argv:     sh(`echo out; printf 'write: denied' >&2; exit 3`),
		Stdout:   stdout.stream(),
		Stderr:   stderr.stream(),
		Grace:    1500 * time.Millisecond,
		Launcher: l,
	})
	if res.Confinement != "the sandbox did it" {
		t.Errorf("Confinement %q", res.Confinement)
	}
	if got := stderr.String(); got != "write: denied\nthe sandbox did it\n" {
		t.Errorf("stderr %q", got)
	}
	if got := stdout.String(); got != "out\n" {
		t.Errorf("stdout %q", got)
	}
	if len(l.shown) != 1 || l.shown[0] != "write: deniedout\n" {
		t.Errorf("the explainer was shown %q, want stderr then stdout", l.shown)
	}
	if len(l.execs) != 1 || l.execs[0].Grace != 1500*time.Millisecond {
		t.Errorf("the launcher was given %+v, want the Spec's grace", l.execs)
	}
}

func TestAnExplainerLineFollowsMergedOutputOrNothing(t *testing.T) {
	t.Parallel()
	l := &explainingLauncher{answer: "hint"}
	merged := newCollector()
	res := mustRun(t, Spec{Argv: sh(`echo denied; exit 1`), Stdout: merged.stream(), Stderr: SameAsStdout{}, Launcher: l})
	if res.Confinement != "hint" || merged.String() != "denied\nhint\n" {
		t.Errorf("merged: %q, output %q", res.Confinement, merged.String())
	}
	// Hooks keep stdout for their answer: with stderr discarded the line
	// goes nowhere, though the result still carries it.
	out := newCollector()
	res = mustRun(t, Spec{Argv: sh(`echo denied; exit 1`), Stdout: out.stream(), Launcher: l})
	if res.Confinement != "hint" || out.String() != "denied\n" {
		t.Errorf("stderr discarded: %q, stdout %q", res.Confinement, out.String())
	}
	res = mustRun(t, Spec{Argv: sh(`echo denied`), Stdout: out.stream(), Launcher: l})
	if res.Confinement != "" {
		t.Errorf("a command that succeeded was explained: %q", res.Confinement)
	}
}

func TestTailKeepsTheEnd(t *testing.T) {
	var tl tail
	tl.add([]byte(strings.Repeat("a", tailKeep)))
	tl.add([]byte("end"))
	if got := string(tl.bytes()); len(got) != tailKeep || !strings.HasSuffix(got, "aend") {
		t.Errorf("tail of %d bytes ending %q", len(got), got[len(got)-8:])
	}
}
