package fsutil

import (
	"os"
	"path/filepath"
	"testing"
)

// ResolveLinks follows links the way the kernel will when the path is
// used: through a link to a folder into a file not made yet, through a
// dangling last link, and refuses a loop.
func TestResolveLinksFollowsWhatThePathWillReach(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(root, "outside")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(root, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"dir":      outside,                           // a folder outside
		"dangling": filepath.Join(outside, "new.txt"), // a file not made yet
		"rel":      "dir",                             // a relative link to a link
		"loop-a":   filepath.Join(ws, "loop-b"),
		"loop-b":   filepath.Join(ws, "loop-a"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	for path, want := range map[string]string{
		filepath.Join(ws, "dir", "later", "x.txt"): filepath.Join(outside, "later", "x.txt"),
		filepath.Join(ws, "dangling"):              filepath.Join(outside, "new.txt"),
		filepath.Join(ws, "rel", "a"):              filepath.Join(outside, "a"),
		filepath.Join(ws, "plain.txt"):             filepath.Join(ws, "plain.txt"),
		filepath.Join(ws, "loop-a"):                "",
		// "dir/.." is the folder above dir's target, not ws: unlike
		// filepath.Join, the path is not cleaned before it is resolved.
		ws + "/dir/../ws":         ws,
		ws + "/dir/../secret.txt": filepath.Join(root, "secret.txt"),
	} {
		if got := ResolveLinks(path); got != want {
			t.Errorf("ResolveLinks(%s) = %q, want %q", path, got, want)
		}
	}
}

func TestWithin(t *testing.T) {
	for _, c := range []struct {
		root, p string
		want    bool
	}{
		{"/w", "/w", true},
		{"/w", "/w/a/b", true},
		{"/w", "/wx", false},
		{"/w", "/", false},
		{"/", "/etc", true},
		{"/", "/", true},
		{"/w/", "/w/a", true},
	} {
		if got := Within(filepath.FromSlash(c.root), filepath.FromSlash(c.p)); got != c.want {
			t.Errorf("Within(%q, %q) = %v", c.root, c.p, got)
		}
	}
}
