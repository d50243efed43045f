package git

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/secrets"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// secretValues are the contents of the secret files the tests commit; no
// tool output may carry any of them.
var secretValues = []string{"API_TOKEN=", "PRIVATE KEY", "SUB_SECRET"}

// secretRepo is a repository with secret files (.env, a key, a nested
// .env) beside ordinary ones, committed twice so every file has a diff.
func secretRepo(t *testing.T) *workspace.Env {
	t.Helper()
	env := newRepo(t)
	files := func(v string) map[string]string {
		return map[string]string{
			".env":         "API_TOKEN=" + v + "\n",
			"keys/id_rsa":  "-----BEGIN PRIVATE KEY-----\n" + v + "\n",
			"sub/.env":     "SUB_SECRET=" + v + "\n",
			".env.example": "EXAMPLE_SETTING=" + v + "\n",
			"a.txt":        "alpha " + v + "\n",
		}
	}
	for name, content := range files("one") {
		write(t, env.Root, name, content)
	}
	commitAll(t, env.Root, "first", day1)
	for name, content := range files("two") {
		write(t, env.Root, name, content)
	}
	commitAll(t, env.Root, "second", day2)
	for name, content := range files("three") {
		write(t, env.Root, name, content)
	}
	return env
}

func noSecrets(t *testing.T, what, out string) {
	t.Helper()
	for _, v := range secretValues {
		if strings.Contains(out, v) {
			t.Errorf("%s shows secret contents (%q):\n%s", what, v, out)
		}
	}
}

const allWithheld = "[changes to secret files such as .env or keys withheld: .env, keys/id_rsa, sub/.env; read one only if the user asks]"

func TestDiffWithholdsSecretFiles(t *testing.T) {
	t.Parallel()
	env := secretRepo(t)
	got := family.Ok(t, env, "git_diff", nil)
	noSecrets(t, "git_diff", got)
	if !strings.Contains(got, "+alpha three") || !strings.Contains(got, "+EXAMPLE_SETTING=three") || !strings.HasSuffix(got, "\n\n"+allWithheld) {
		t.Errorf("git_diff:\n%s", got)
	}
	gitT(t, env.Root, "add", "-A")
	got = family.Ok(t, env, "git_diff", map[string]any{"staged": true})
	noSecrets(t, "git_diff staged", got)
	if !strings.Contains(got, "+alpha three") || !strings.HasSuffix(got, allWithheld) {
		t.Errorf("git_diff staged:\n%s", got)
	}
	// Asked for a secret file alone, only the note is left.
	got = family.Ok(t, env, "git_diff", map[string]any{"staged": true, "path": "sub/.env"})
	if want := "[changes to secret files such as .env or keys withheld: sub/.env; read one only if the user asks]"; got != want {
		t.Errorf("git_diff of sub/.env: %q", got)
	}
}

// A rename with a secret side is withheld whole: otherwise the other side
// would show up as a new file with the secret in it.
func TestDiffWithholdsBothSidesOfASecretRename(t *testing.T) {
	t.Parallel()
	env := newRepo(t)
	write(t, env.Root, ".env", "API_TOKEN=one\nMORE=1\nMORE=2\n")
	write(t, env.Root, "b.txt", "bee\n")
	commitAll(t, env.Root, "first", day1)
	gitT(t, env.Root, "mv", ".env", "settings.txt")
	write(t, env.Root, "b.txt", "bee bee\n")
	gitT(t, env.Root, "add", "-A")
	got := family.Ok(t, env, "git_diff", map[string]any{"staged": true})
	noSecrets(t, "git_diff of a rename", got)
	if !strings.Contains(got, "+bee bee") || !strings.HasSuffix(got, "withheld: .env, settings.txt; read one only if the user asks]") {
		t.Errorf("git_diff:\n%s", got)
	}
}

func TestShowWithholdsSecretFiles(t *testing.T) {
	t.Parallel()
	env := secretRepo(t)
	commitAll(t, env.Root, "third", day3)
	gitT(t, env.Root, "tag", "-a", "v2", "-m", "release", "HEAD~1")
	gitT(t, env.Root, "tag", "-a", "env-blob", "-m", "a blob", "HEAD:.env")
	for _, ref := range []string{"HEAD", "HEAD~1", "v2", "HEAD~2..HEAD", "main", ":/second"} {
		got := family.Ok(t, env, "git_show", map[string]any{"ref": ref})
		noSecrets(t, "git_show "+ref, got)
		if !strings.Contains(got, "+alpha ") || !strings.Contains(got, "+EXAMPLE_SETTING=") || !strings.HasSuffix(got, "\n\n"+allWithheld) {
			t.Errorf("git_show %s:\n%s", ref, got)
		}
	}
	got := family.Ok(t, env, "git_show", map[string]any{"ref": "HEAD", "path": "sub"})
	if want := "withheld: sub/.env; read one only if the user asks]"; !strings.HasSuffix(got, want) || strings.Contains(got, "keys/id_rsa") {
		t.Errorf("git_show HEAD -- sub:\n%s", got)
	}
	// A secret file's contents at a commit, in the index, or by a tag.
	for _, ref := range []string{"HEAD:.env", "HEAD~1:keys/id_rsa", "HEAD:./sub/.env", ":.env", ":0:.env", "HEAD@{0}:.env", "main^{tree}:.env"} {
		got := family.Ok(t, env, "git_show", map[string]any{"ref": ref})
		if want := "The contents of " + ref + " are withheld: it is a secret file (such as .env or a key). Read it only if the user asks."; got != want {
			t.Errorf("git_show %s: %q", ref, got)
		}
	}
	// A blob named by its id or by a tag has no name to judge it by.
	sha := strings.TrimSpace(gitT(t, env.Root, "rev-parse", "HEAD:.env"))
	for _, ref := range []string{sha, "env-blob", sha[:10]} {
		msg := family.Fail(t, env, "git_show", map[string]any{"ref": ref})
		noSecrets(t, "git_show "+ref, msg)
		if !strings.Contains(msg, "names a file's contents without its path") {
			t.Errorf("git_show %s: %q", ref, msg)
		}
	}
	// Ordinary files and trees still show.
	if got := family.Ok(t, env, "git_show", map[string]any{"ref": "HEAD:.env.example"}); got != "EXAMPLE_SETTING=three\n" {
		t.Errorf("git_show HEAD:.env.example: %q", got)
	}
	if got := family.Ok(t, env, "git_show", map[string]any{"ref": "HEAD:"}); !strings.Contains(got, ".env\n") || !strings.Contains(got, "a.txt") {
		t.Errorf("git_show of a tree: %q", got)
	}
}

func TestShowWithholdsSecretFilesOfAMerge(t *testing.T) {
	t.Parallel()
	env := newRepo(t)
	write(t, env.Root, ".env", "API_TOKEN=base\n")
	write(t, env.Root, "a.txt", "base\n")
	commitAll(t, env.Root, "base", day1)
	gitT(t, env.Root, "checkout", "-q", "-b", "side")
	write(t, env.Root, ".env", "API_TOKEN=side\n")
	commitAll(t, env.Root, "side", day2)
	gitT(t, env.Root, "checkout", "-q", "main")
	write(t, env.Root, ".env", "API_TOKEN=main\n")
	commitAll(t, env.Root, "main", day2)
	// The merge conflicts in .env; its resolution is a combined diff.
	if out, err := gitCmd(env.Root, day3, "merge", "-q", "--no-edit", "side").CombinedOutput(); err == nil {
		t.Fatalf("the merge did not conflict:\n%s", out)
	}
	write(t, env.Root, ".env", "API_TOKEN=merged\n")
	write(t, env.Root, "a.txt", "merged\n")
	commitAll(t, env.Root, "merge", day3)
	got := family.Ok(t, env, "git_show", map[string]any{"ref": "HEAD"})
	noSecrets(t, "git_show of a merge", got)
	if !strings.Contains(got, "Merge: ") || !strings.HasSuffix(got, "withheld: .env; read one only if the user asks]") {
		t.Errorf("git_show of a merge:\n%s", got)
	}
}

func TestBlameWithholdsSecretFiles(t *testing.T) {
	t.Parallel()
	env := secretRepo(t)
	if err := os.Symlink(".env", filepath.Join(env.Root, "settings")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{".env", "keys/id_rsa", "sub/.env", "./sub/../.env", "settings"} {
		got := family.Ok(t, env, "git_blame", map[string]any{"path": p})
		if want := "The contents of " + p + " are withheld: it is a secret file (such as .env or a key). Read it only if the user asks."; got != want {
			t.Errorf("git_blame %s: %q", p, got)
		}
	}
	if got := family.Ok(t, env, "git_blame", map[string]any{"path": ".env.example"}); !strings.Contains(got, "EXAMPLE_SETTING=three") {
		t.Errorf("git_blame .env.example: %q", got)
	}
}

func TestCommitMessageWithholdsSecretFiles(t *testing.T) {
	t.Parallel()
	env := secretRepo(t)
	gitT(t, env.Root, "add", "-A")
	model := newFakeModel("Rotate the settings")
	if got, err := call(t, env, model, "git_commit_message", nil); err != nil || got != "Rotate the settings" {
		t.Fatalf("git_commit_message: %q, %v", got, err)
	}
	p := (*model.calls)[0].prompt
	noSecrets(t, "the commit message prompt", p)
	if !strings.Contains(p, "+alpha three") || !strings.HasSuffix(p, "\n"+allWithheld) {
		t.Errorf("prompt:\n%s", p)
	}
	// Only secret files staged: the model still hears that something is.
	gitT(t, env.Root, "commit", "-q", "-m", "third")
	write(t, env.Root, ".env", "API_TOKEN=four\n")
	gitT(t, env.Root, "add", ".env")
	if _, err := call(t, env, model, "git_commit_message", nil); err != nil {
		t.Fatal(err)
	}
	if p := (*model.calls)[1].prompt; strings.Contains(p, "four") || !strings.HasSuffix(p, "Staged diff:\n\n[changes to secret files such as .env or keys withheld: .env; read one only if the user asks]") {
		t.Errorf("prompt with only a secret staged:\n%s", p)
	}
}

func TestSecretChanges(t *testing.T) {
	listing := "M\x00a.txt\x00M\x00.env\x00R100\x00id_rsa\x00moved\x00C75\x00x.go\x00y.pem\x00" +
		"\nA\x00sub/.env\x00D\x00.env.example\x00R090\x00M\x00N\x00A\x00.env\x00"
	got := secretChanges([]byte(listing))
	want := []string{".env", "id_rsa", "moved", "sub/.env", "x.go", "y.pem"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if got := secretChanges([]byte("M\x00")); got != nil {
		t.Errorf("a cut listing: %q", got)
	}
}

func TestBlobPath(t *testing.T) {
	for ref, want := range map[string]string{
		"HEAD:a/.env":                  "a/.env",
		"HEAD~1:x":                     "x",
		":.env":                        ".env",
		":2:.env":                      ".env",
		":4:.env":                      "4:.env",
		"HEAD@{2024-01-02 03:04}:.env": ".env",
		"main^{/fix: it}:k.pem":        "k.pem",
		"HEAD:":                        "",
		"HEAD:a:b":                     "a:b",
	} {
		if got, ok := blobPath(ref); !ok || got != want {
			t.Errorf("blobPath(%q) = %q, %v; want %q", ref, got, ok, want)
		}
	}
	for _, ref := range []string{"HEAD", "HEAD~1..HEAD", ":/fix the bug", "abc123", "HEAD@{1}"} {
		if got, ok := blobPath(ref); ok {
			t.Errorf("blobPath(%q) = %q, want no path", ref, got)
		}
	}
}

func TestWithheldNoteNamesTenPaths(t *testing.T) {
	var paths []string
	for i := range 13 {
		paths = append(paths, "sub/"+string(rune('a'+i))+".pem")
	}
	got := withheldNote(paths, "sub/")
	if !strings.Contains(got, ": a.pem, b.pem,") || !strings.Contains(got, "j.pem and 3 more;") || strings.Contains(got, "k.pem") {
		t.Errorf("note: %s", got)
	}
}

// FuzzSecretChanges: the listing reader never panics, names only paths
// the listing holds, and misses no secret path of a well-formed listing.
func FuzzSecretChanges(f *testing.F) {
	f.Add([]byte("M\x00a.txt\x00R100\x00.env\x00b\x00"), ".env")
	f.Add([]byte("\nA\x00x.pem\x00C\x00"), "k/id_rsa")
	f.Fuzz(func(t *testing.T, listing []byte, secret string) {
		fields := strings.Split(string(listing), "\x00")
		for _, p := range secretChanges(listing) {
			if !slices.Contains(fields, p) {
				t.Fatalf("%q is not in the listing %q", p, listing)
			}
		}
		if secret == "" || strings.ContainsRune(secret, 0) || !secrets.IsFile(secret) {
			return
		}
		wellFormed := append([]byte("M\x00a.txt\x00R090\x00"+secret+"\x00b.txt\x00M\x00"), secret...)
		if got := secretChanges(append(wellFormed, 0)); !slices.Contains(got, secret) || !slices.Contains(got, "b.txt") {
			t.Fatalf("secret %q missed: %q", secret, got)
		}
	})
}

// FuzzBlobPath: any ref is read without panicking, and a path found is
// the end of the ref.
func FuzzBlobPath(f *testing.F) {
	for _, s := range []string{"HEAD:.env", ":0:a", ":/x", "a@{b:c}:d", "{{:}}:x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		if p, ok := blobPath(ref); ok && !strings.HasSuffix(ref, p) {
			t.Fatalf("blobPath(%q) = %q", ref, p)
		}
	})
}
