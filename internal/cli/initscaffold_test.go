package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scaffoldIO runs the CLI in dir with no environment to speak of: the
// scaffold needs no config, no key and no model.
func scaffoldIO(dir string) (IO, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return IO{
		In: strings.NewReader(""), Out: &out, Err: &errb,
		Getenv: func(string) string { return "" },
		Getwd:  func() (string, error) { return dir, nil },
	}, &out, &errb
}

func TestInitScaffoldWritesTheThreeFiles(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(root, "pkg")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	stdio, out, errb := scaffoldIO(sub)
	if code := Run(t.Context(), []string{"--init-scaffold"}, stdio); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	for _, rel := range []string{"TODO.md", "ROADMAP.md", filepath.Join("docs", "README.md")} {
		path := filepath.Join(root, rel)
		data, err := os.ReadFile(path)
		if err != nil || len(data) == 0 {
			t.Errorf("%s: %v", rel, err)
		}
		if !strings.Contains(out.String(), "wrote "+path+"\n") {
			t.Errorf("output does not report %s:\n%s", path, out)
		}
	}
	if !strings.HasPrefix(readOrEmpty(filepath.Join(root, "TODO.md")), "# TODO\n") {
		t.Error("TODO.md is not the template")
	}
}

func TestInitScaffoldLeavesExistingFilesByteIdentical(t *testing.T) {
	dir := t.TempDir() // not a repository: the scaffold writes here
	mine := map[string]string{
		"TODO.md":        "my list\r\n- keep\n",
		"ROADMAP.md":     "",
		"docs/README.md": "# my docs\n",
	}
	for rel, body := range mine {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	stdio, out, errb := scaffoldIO(dir)
	if code := Run(t.Context(), []string{"--init-scaffold"}, stdio); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	for rel, body := range mine {
		p := filepath.Join(dir, rel)
		if got := readOrEmpty(p); got != body {
			t.Errorf("%s changed to %q", rel, got)
		}
		if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode changed to %v", rel, fi.Mode().Perm())
		}
		if !strings.Contains(out.String(), "left alone "+p+" (already exists)") {
			t.Errorf("output does not report %s kept:\n%s", rel, out)
		}
	}
	if strings.Contains(out.String(), "wrote ") {
		t.Fatalf("nothing should be written:\n%s", out)
	}
}

func readOrEmpty(path string) string {
	data, _ := os.ReadFile(path)
	return string(data)
}
