package workspace_test

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/workspace"
)

// ignoreCase is a tree with ignore files in it.
type ignoreCase struct {
	name  string
	files map[string]string
	// gap, when set, says how the matcher is known to differ from git here;
	// the case is reported but does not fail.
	gap string
}

// ignoreCases go past the fixture the walk and search tests share: each is
// one rule of gitignore(5) that a matcher can get wrong.
var ignoreCases = []ignoreCase{
	{name: "question-mark", files: map[string]string{".gitignore": "?.txt\n", "a.txt": "", "ab.txt": ""}},
	{name: "middle-slash-anchors", files: map[string]string{".gitignore": "foo/bar\n", "foo/bar": "", "x/foo/bar": ""}},
	{name: "middle-slash-anchors-nested", files: map[string]string{"d/.gitignore": "foo/bar\n", "d/foo/bar": "", "d/x/foo/bar": "", "foo/bar": ""}},
	{name: "doublestar-middle", files: map[string]string{".gitignore": "a/**/b\n", "a/b": "", "a/x/b": "", "a/x/y/b": "", "c/a/b": ""}},
	{name: "doublestar-leading", files: map[string]string{".gitignore": "**/x\n", "x": "", "d/x": "", "d/e/x": ""}},
	{name: "doublestar-trailing", files: map[string]string{".gitignore": "abc/**\n", "abc/a": "", "abc/d/e": "", "x/abc/f": ""}},
	{name: "bracket", files: map[string]string{".gitignore": "[ab].c\n", "a.c": "", "b.c": "", "c.c": ""}},
	{name: "range", files: map[string]string{".gitignore": "file[0-9].txt\n", "file1.txt": "", "filex.txt": ""}},
	{name: "escaped-hash", files: map[string]string{".gitignore": "\\#h\n", "#h": "", "h": ""}},
	{name: "escaped-bang", files: map[string]string{".gitignore": "\\!b\n", "!b": "", "b": ""}},
	{name: "negation", files: map[string]string{".gitignore": "*.o\n!x.o\n", "x.o": "", "y.o": ""}},
	{name: "negation-before-the-rule-it-would-undo", files: map[string]string{".gitignore": "!x.o\n*.o\n", "x.o": "", "y.o": ""}},
	{name: "directory-only", files: map[string]string{".gitignore": "dir/\n", "dir/f": "", "sub/dir": ""}},
	{name: "star-does-not-cross-slash", files: map[string]string{".gitignore": "sub/*.c\n", "sub/a.c": "", "sub/d/b.c": "", "x/sub/c.c": ""}},
	{name: "leading-slash", files: map[string]string{".gitignore": "/r.txt\n", "r.txt": "", "d/r.txt": ""}},
	{name: "leading-slash-nested", files: map[string]string{"d/.gitignore": "/r.txt\n", "d/r.txt": "", "d/e/r.txt": "", "r.txt": ""}},
	{name: "nested-file-re-includes", files: map[string]string{".gitignore": "*.log\n", "d/.gitignore": "!keep.log\n", "d/keep.log": "", "keep.log": "", "d/x.log": ""}},
	{name: "no-re-include-inside-an-excluded-directory", files: map[string]string{".gitignore": "build/\n!build/keep\n", "build/keep": "", "build/x": ""}},
	{name: "trailing-space", files: map[string]string{".gitignore": "sp \n", "sp": ""}},
	{name: "regexp-characters-are-literal", files: map[string]string{".gitignore": "c++\n(x)\na.b\n", "c++": "", "cc": "", "(x)": "", "x": "", "a.b": "", "axb": ""}},
	{name: "negated-bracket", files: map[string]string{".gitignore": "[!a].c\n", "a.c": "", "b.c": ""},
		gap: "go-git reads [!a] as the class of ! and a, not as its complement"},
	{name: "re-include-directories-then-files", files: map[string]string{".gitignore": "*\n!*/\n!*.go\n", "a.go": "", "b.txt": "", "d/c.go": "", "d/e.txt": ""},
		gap: "go-git lets !*/ re-include every file below a directory"},
}

// Git itself is the reference: for each case, a walk must report exactly
// the untracked files git does not ignore.
func TestIgnoreRulesAgreeWithGit(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	for _, c := range ignoreCases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, body := range c.files {
				p := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want := gitVisible(t, git, dir)
			got := walkVisible(t, dir)
			switch {
			case slices.Equal(got, want):
			case c.gap != "":
				t.Logf("known gap (%s):\n walk: %q\n git:  %q", c.gap, got, want)
			default:
				t.Errorf("\n walk: %q\n git:  %q", got, want)
			}
		})
	}
}

// gitVisible lists the files git would offer to add in dir, with no user
// or system configuration in play.
func gitVisible(t *testing.T, git, dir string) []string {
	t.Helper()
	env := append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	for _, args := range [][]string{{"init", "-q"}, {"ls-files", "--others", "--exclude-standard", "-z"}} {
		cmd := exec.Command(git, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
		if args[0] == "ls-files" {
			files := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
			slices.Sort(files)
			return files
		}
	}
	return nil
}

func walkVisible(t *testing.T, dir string) []string {
	t.Helper()
	env, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	err = workspace.Walk(context.Background(), env, ".", workspace.WalkOptions{}, func(rel string, d fs.DirEntry) error {
		if !d.IsDir() {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	return files
}
