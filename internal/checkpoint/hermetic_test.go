package checkpoint

import (
	"os"
	"path/filepath"
	"testing"
)

// Taking a checkpoint runs no program that config names: not a clean
// filter or an fsmonitor from the person's global config (which the
// workspace's .gitattributes could call on), nor one planted in the
// private repository's own config or hooks. git reads the workspace's
// files and nothing runs them.
func TestSnapshotRunsNoProgramThatConfigNames(t *testing.T) {
	root := t.TempDir()
	home := t.TempDir()
	marks := t.TempDir()
	script := func(name string) string {
		p := filepath.Join(marks, name+".sh")
		if err := os.WriteFile(p, []byte("#!/bin/sh\ntouch "+filepath.Join(marks, name+".ran")+"\ncat\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	global := "[filter \"evil\"]\n\tclean = " + script("global-filter") + "\n[core]\n\tfsmonitor = " + script("global-fsmonitor") + "\n"
	for _, p := range []string{filepath.Join(home, ".gitconfig"), filepath.Join(home, ".config", "git", "config")} {
		write(t, "/", p, global, 0o644)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	write(t, "/", filepath.Join(root, ".gitattributes"), "* filter=evil\n", 0o644)
	write(t, "/", filepath.Join(root, "a.txt"), "one\n", 0o644)
	s := openStore(t, root, Options{})
	snap(t, s)

	// Config and hooks planted in the private repository itself.
	f, err := os.OpenFile(filepath.Join(s.opts.Dir, "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString("[core]\n\tfsmonitor = " + script("repo-fsmonitor") + "\n[filter \"evil\"]\n\tclean = " + script("repo-filter") + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, hook := range []string{"reference-transaction", "post-index-change"} {
		write(t, "/", filepath.Join(s.opts.Dir, "hooks", hook), "#!/bin/sh\ntouch "+filepath.Join(marks, hook+".ran")+"\n", 0o755)
	}
	write(t, "/", filepath.Join(root, "a.txt"), "two\n", 0o644)
	write(t, "/", filepath.Join(root, "b.txt"), "new\n", 0o644)
	snap(t, s)

	ran, err := filepath.Glob(filepath.Join(marks, "*.ran"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range ran {
		t.Errorf("taking a checkpoint ran %s", filepath.Base(r))
	}
}
