package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// carve is the grants of carving root around excluded, sorted.
func carve(root string, excluded []string) []string {
	c, whole, done := newCarve(root, excluded)
	if done {
		return whole
	}
	var grants []string
	for _, folder := range c.folders() {
		grants = append(grants, c.entries(folder, os.ReadDir)...)
	}
	slices.Sort(grants)
	return grants
}

func mkfiles(t *testing.T, root string, paths ...string) {
	t.Helper()
	for _, p := range paths {
		full := filepath.Join(root, p)
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCarveGrantsEverythingButTheExcluded(t *testing.T) {
	root := t.TempDir()
	mkfiles(t, root, "a/", "b.txt", "home/.ssh/id_rsa", "home/.bashrc", "home/src/", "home/.config/gcloud/creds", "home/.config/nvim/init.lua")
	// A symlink to a secret must not be granted: Landlock would follow it.
	if err := os.Symlink(filepath.Join(root, "home", ".ssh"), filepath.Join(root, "home", "keys")); err != nil {
		t.Fatal(err)
	}
	got := carve(root, []string{filepath.Join(root, "home", ".ssh"), filepath.Join(root, "home", ".config", "gcloud"), "/elsewhere/ignored"})
	want := []string{"a", "b.txt", "home/.bashrc", "home/.config/nvim", "home/src"}
	for i := range want {
		want[i] = filepath.Join(root, want[i])
	}
	if !slices.Equal(got, want) {
		t.Errorf("carve = %q\nwant    %q", got, want)
	}
	if got := carve(root, nil); !slices.Equal(got, []string{root}) {
		t.Errorf("carve without exclusions = %q, want the root", got)
	}
	if got := carve(root, []string{root}); got != nil {
		t.Errorf("carve excluding the root = %q, want nothing", got)
	}
}

func TestSecretsAreTheHomeSecretsAndShirosPrivateFiles(t *testing.T) {
	home := t.TempDir()
	mkfiles(t, home, ".ssh/id_ed25519", ".aws/credentials", ".netrc", ".bashrc",
		".shiro-neko/config.json", ".shiro-neko/hooks.json", ".shiro-neko/keys/signing.key",
		".shiro-neko/hook-cache/h", ".shiro-neko/skills/s/SKILL.md")
	p := Policy{Home: home, State: filepath.Join(home, ".shiro-neko")}
	got := p.secrets()
	for _, want := range []string{".ssh", ".aws", ".netrc", ".shiro-neko/config.json", ".shiro-neko/hooks.json", ".shiro-neko/keys"} {
		if !slices.Contains(got, filepath.Join(home, want)) {
			t.Errorf("secrets lack %s: %q", want, got)
		}
	}
	for _, not := range []string{".bashrc", ".shiro-neko/hook-cache", ".shiro-neko/skills", ".shiro-neko"} {
		if slices.Contains(got, filepath.Join(home, not)) {
			t.Errorf("secrets hold %s: %q", not, got)
		}
	}
	if got := (Policy{Home: "/"}).secrets(); len(got) != 0 {
		t.Errorf("a home of / yields secrets %q", got)
	}
}

func TestProtectionsComeParentsFirst(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	mkfiles(t, ws, ".git/hooks/", ".git/config", ".shiro/config.json", "home/.ssh/id_rsa", "home/.shiro-neko/config.json", "home/.shiro-neko/skills/")
	p := Policy{Mode: WorkspaceWrite, Workspace: ws, Home: filepath.Join(ws, "home"), State: filepath.Join(ws, "home", ".shiro-neko"), Temp: filepath.Join(root, "tmp")}
	got := p.protections(p.secrets())
	want := []protection{
		{pin, ws},
		{pin, filepath.Join(ws, ".git")},
		{readOnly, filepath.Join(ws, ".git", "config")},
		{readOnlyDir, filepath.Join(ws, ".git", "hooks")},
		{readOnlyDir, filepath.Join(ws, ".git", "info")},
		{readOnly, filepath.Join(ws, ".shiro")},
		{readOnly, filepath.Join(ws, "home", ".shiro-neko")},
		{hide, filepath.Join(ws, "home", ".shiro-neko", "config.json")},
		{hide, filepath.Join(ws, "home", ".ssh")},
	}
	if !slices.Equal(got, want) {
		t.Errorf("protections:\n got %v\nwant %v", got, want)
	}
	p.Mode = ReadOnly
	if got := p.protections(p.secrets()); got != nil {
		t.Errorf("read-only mode protects %v; nothing is writable to protect from", got)
	}
	// A workspace with nothing to protect needs no mounts at all.
	bare := t.TempDir()
	if got := (Policy{Mode: WorkspaceWrite, Workspace: bare}).protections(nil); got != nil {
		t.Errorf("a bare workspace gets %v", got)
	}
}

func TestSymlinkedHooksAreNotPretendedToBeProtected(t *testing.T) {
	ws := t.TempDir()
	mkfiles(t, ws, ".git/config", "shared-hooks/")
	if err := os.Symlink(filepath.Join(ws, "shared-hooks"), filepath.Join(ws, ".git", "hooks")); err != nil {
		t.Fatal(err)
	}
	for _, pr := range (Policy{Mode: WorkspaceWrite, Workspace: ws}).protections(nil) {
		if strings.HasSuffix(pr.Path, "hooks") {
			t.Errorf("a symlinked hooks folder is in the protections: %v", pr)
		}
	}
}

func TestNormalizeResolvesPathsAndDropsMissingWritables(t *testing.T) {
	root := t.TempDir()
	mkfiles(t, root, "real/", "cache/")
	if err := os.Symlink(filepath.Join(root, "real"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	p, notes, err := Policy{Workspace: filepath.Join(root, "link"), Temp: filepath.Join(root, "cache"),
		Writable: []string{filepath.Join(root, "cache"), filepath.Join(root, "gone")}}.normalize()
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(filepath.Join(root, "real"))
	if p.Workspace != real {
		t.Errorf("workspace %s, want %s", p.Workspace, real)
	}
	if len(p.Writable) != 1 || len(notes) != 1 || !strings.Contains(notes[0], "gone") {
		t.Errorf("writable %q, notes %q", p.Writable, notes)
	}
}

func TestParseModeAndStrictness(t *testing.T) {
	for in, want := range map[string]Mode{"": WorkspaceWrite, "workspace-write": WorkspaceWrite, "read-only": ReadOnly, "off": Off} {
		got, err := ParseMode(in)
		if err != nil || got != want {
			t.Errorf("ParseMode(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseMode("danger-full-access"); err == nil || !strings.Contains(err.Error(), "read-only, workspace-write, off") {
		t.Errorf("ParseMode of an unknown mode: %v", err)
	}
	if !ReadOnly.Stricter(WorkspaceWrite) || !WorkspaceWrite.Stricter(Off) || Off.Stricter(ReadOnly) || WorkspaceWrite.Stricter(WorkspaceWrite) {
		t.Error("Stricter does not order read-only > workspace-write > off")
	}
}
