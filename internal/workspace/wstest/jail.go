package wstest

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// NoTempFiles fails the test for every file below the dirs that looks
// like one of shiro's temporary files (".shiro-" in its name, or a .tmp
// suffix): a write that failed or raced must clean up after itself.
func NoTempFiles(t testing.TB, dirs ...string) {
	t.Helper()
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if name := d.Name(); strings.Contains(name, ".shiro-") || strings.HasSuffix(name, ".tmp") {
				t.Errorf("temporary file left behind: %s", p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// Unchanged fails the test unless dir holds exactly the files of want,
// with the same contents: nothing was created, changed or removed there.
func Unchanged(t testing.TB, dir string, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			got[rel] = "(symlink)"
		case d.IsDir():
			got[rel+"/"] = ""
		default:
			b, err := readFile(p)
			if err != nil {
				return err
			}
			got[rel] = b
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range want {
		if g, ok := got[name]; !ok {
			t.Errorf("%s: %s is gone", dir, name)
		} else if g != content {
			t.Errorf("%s: %s changed to %q", dir, name, g)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: %s appeared", dir, name)
		}
	}
}

func readFile(p string) (string, error) {
	b, err := os.ReadFile(p)
	return string(b), err
}
