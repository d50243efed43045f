package tool

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// diffCase is one generated change: a file of distinct lines with a few
// blocks replaced, inserted or deleted. Every line, old or new, is unique,
// so the longest common subsequence is the untouched lines and any correct
// diff has the same hunks as git's.
type diffCase struct {
	name          string
	before, after string
}

func genDiffCases(r *rand.Rand, n int) []diffCase {
	var cases []diffCase
	for c := 0; c < n; c++ {
		size := 1 + r.Intn(60)
		var old, neu []string
		fresh := 0
		for i := 0; i < size; {
			// Edits come close together on purpose: joined hunks are where
			// the line numbers went wrong.
			if r.Intn(4) == 0 {
				del := r.Intn(4)
				add := r.Intn(4)
				if del == 0 && add == 0 {
					add = 1
				}
				for j := 0; j < del && i < size; j++ {
					old = append(old, fmt.Sprintf("L%d old", i))
					i++
				}
				for j := 0; j < add; j++ {
					neu = append(neu, fmt.Sprintf("N%d new", fresh))
					fresh++
				}
				continue
			}
			line := fmt.Sprintf("L%d same", i)
			old = append(old, line)
			neu = append(neu, line)
			i++
		}
		before, after := strings.Join(old, "\n"), strings.Join(neu, "\n")
		if r.Intn(5) != 0 && before != "" {
			before += "\n"
		}
		if r.Intn(5) != 0 && after != "" {
			after += "\n"
		}
		if before == "" || after == "" || before == after {
			continue // new, deleted and unchanged files are not what this tests
		}
		cases = append(cases, diffCase{name: fmt.Sprintf("case%03d.txt", c), before: before, after: after})
	}
	return cases
}

func gitCmd(t *testing.T, dir string, stdin []byte, args ...string) ([]byte, error) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(stdin)
	// Neither the machine's nor the user's git settings may change the
	// output (diff.noprefix, color.ui, a diff driver).
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil && stderr.Len() > 0 {
		err = fmt.Errorf("%w: %s", err, stderr.String())
	}
	return out, err
}

var hunkHeader = regexp.MustCompile(`^@@ -[0-9,]+ \+[0-9,]+ @@`)

// hunksOf returns a unified diff's lines from the first hunk header on,
// each header cut to its ranges (git appends a function name).
func hunksOf(unified string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(unified, "\n"), "\n") {
		if m := hunkHeader.FindString(l); m != "" {
			l = m
		} else if len(out) == 0 {
			continue
		}
		out = append(out, l)
	}
	return out
}

// TestFileDiffMatchesGit checks FileDiff's hunks, headers first, against
// git diff on generated changes, and that git applies each patch to give
// the after text exactly.
func TestFileDiffMatchesGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	cases := genDiffCases(rand.New(rand.NewSource(28)), 400)
	for _, sub := range []string{"a", "b", "work"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var patch strings.Builder
	for _, c := range cases {
		for sub, text := range map[string]string{"a": c.before, "b": c.after, "work": c.before} {
			if err := os.WriteFile(filepath.Join(dir, sub, c.name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		patch.WriteString(FileDiff(c.name, c.before, c.after).Unified)
	}

	// One git process for all cases: the machine is shared.
	out, err := gitCmd(t, dir, nil, "diff", "--no-index", "--no-color", "--no-ext-diff", "-U3", "a", "b")
	if err == nil {
		t.Fatal("git diff --no-index found no difference")
	}
	theirs := map[string]string{}
	for _, part := range strings.Split(string(out), "diff --git ")[1:] {
		first, _, _ := strings.Cut(part, "\n")
		theirs[filepath.Base(strings.Fields(first)[0])] = part
	}
	bad := 0
	for _, c := range cases {
		want, ok := theirs[c.name]
		if !ok {
			t.Errorf("%s: git diff shows no change", c.name)
			continue
		}
		got := FileDiff(c.name, c.before, c.after).Unified
		if g, w := strings.Join(hunksOf(got), "\n"), strings.Join(hunksOf(want), "\n"); g != w {
			t.Errorf("%s: hunks differ from git's\nbefore:\n%s\nafter:\n%s\nours:\n%s\ngit's:\n%s", c.name, c.before, c.after, g, w)
			if bad++; bad == 3 {
				t.Fatal("stopping after three differing cases")
			}
		}
	}

	if out, err := gitCmd(t, filepath.Join(dir, "work"), []byte(patch.String()), "apply", "--check", "-"); err != nil {
		t.Fatalf("git apply --check refused our patch: %v\n%s", err, out)
	}
	if _, err := gitCmd(t, filepath.Join(dir, "work"), []byte(patch.String()), "apply", "-"); err != nil {
		t.Fatalf("git apply: %v", err)
	}
	for _, c := range cases {
		got, err := os.ReadFile(filepath.Join(dir, "work", c.name))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.after {
			t.Errorf("%s: applying our patch gave\n%q\nwant\n%q", c.name, got, c.after)
		}
	}
	t.Logf("%d generated changes agree with git", len(cases))
}
