package cli

import (
	"bytes"
	"context"
	"testing"

	"github.com/shiro-neko/shiro/internal/version"
)

// --version is printed by shiro itself, not by a cobra template (which
// would link text/template; see cmd/shiro's TestBinaryKeepsDeadCodeElimination).
// The output is exactly the line a template gave: version.String() and a
// newline, whatever else is on the command line.
func TestVersionPrintsOneLine(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"-v"}, {"--version", "-p", "a prompt"}, {"-v", "some", "words"}} {
		var out, errOut bytes.Buffer
		stdio := IO{Out: &out, Err: &errOut, In: &bytes.Buffer{},
			Getenv: func(string) string { return "" }, Getwd: func() (string, error) { return t.TempDir(), nil }}
		if code := Run(context.Background(), args, stdio); code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, errOut.String())
		}
		if want := version.String() + "\n"; out.String() != want {
			t.Errorf("%q printed %q, want %q", args, out.String(), want)
		}
		if errOut.Len() > 0 {
			t.Errorf("%q wrote to stderr: %q", args, errOut.String())
		}
	}
}
