package bash

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

type stringWriter = bytes.Buffer

func parseForTest(t testing.TB, line string) *syntax.File {
	t.Helper()
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		t.Fatalf("parse %q: %v", line, err)
	}
	return f
}

func readDirNames(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names, err
}

// FuzzPure: no input makes the classifier panic; a line it accepts runs
// in-process without reaching any handler to the outside, and prints and
// exits as bash does with the same environment, when bash is installed.
func FuzzPure(f *testing.F) {
	for _, seed := range []string{
		"true", "echo -n x", "echo -e 'a\\tb'", "a=1; echo $a", "false || echo x", "exit 3", "{ echo a; } && ! false",
		"a=$V; b=\"$a$a\"; echo $b", "echo $W", "echo \"$G\"", "echo x\\\ny", "echo -e \"\\\\\\\\c\"", "a=-n; echo $a x",
		"echo *", "echo $(id)", "a='*'; echo $a", "echo ${V}", "echo 'it''s'", "echo \"a\\$b\\\"c\"", "x=; echo \"[$x]\"",
		"echo\u00a0x", "echo é\u3000b", "a=\"$E\"; echo -e $a", "echo $W$V", "exit 08", "! { exit 4; }", "a=1\nb=2\necho $a$b",
	} {
		f.Add(seed)
	}
	env := wstest.Env(f, nil)
	env.ShellEnv = []string{"PATH=/usr/bin:/bin", "V=-e", "W=a  b\tc", "G=x*y?[z]", "E=a\\tb"}
	bash, lookErr := exec.LookPath("bash")
	f.Fuzz(func(t *testing.T, line string) {
		l := pureLineOf(env, line)
		if l == nil {
			return
		}
		if l.environ == nil {
			l.environ = env.CommandEnviron()
		}
		var out bytes.Buffer
		exit, ok := l.run(context.Background(), &out)
		if !ok {
			t.Fatalf("%q was accepted, then reached outside or failed in-process", line)
		}
		if lookErr != nil {
			return
		}
		cmd := exec.Command(bash, "--norc", "-c", line)
		cmd.Dir, cmd.Env = env.Root, l.environ
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		got, err := cmd.Output()
		code := 0
		if exitErr := (*exec.ExitError)(nil); errors.As(err, &exitErr) {
			code = exitErr.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != exit || !bytes.Equal(got, out.Bytes()) || stderr.Len() > 0 {
			t.Errorf("%q: in-process exit %d, %q; bash exit %d, %q (stderr %q)", line, exit, out.Bytes(), code, got, stderr.Bytes())
		}
	})
}

// BenchmarkInProcess is what a `true` costs shiro in-process: the
// classification (done for the call's plan too) and the run.
func BenchmarkInProcess(b *testing.B) {
	env := wstest.Env(b, nil)
	b.Run("classify", func(b *testing.B) {
		for b.Loop() {
			if pureLineOf(env, "true") == nil {
				b.Fatal("true is not pure")
			}
		}
	})
	b.Run("run", func(b *testing.B) {
		for b.Loop() {
			if _, ok := runInProcess(context.Background(), env, "true", func(string) {}); !ok {
				b.Fatal("true did not run in-process")
			}
		}
	})
}
