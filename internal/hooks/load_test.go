//go:build unix

package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const okRun = "#!/bin/sh\necho '{\"allow\":true}'\n"

func TestLoadFindsHooksInNameOrder(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.hook("zeta", KindPreTool, []string{"bash"}, "true")
	f.rawHook(f.userDir, "alpha", `{"name":"alpha","hook":"after_turn","tools":["*"],"timeout":7}`, okRun)

	set, problems := Load(f.hooksDir, f.userDir)

	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
	hooks := set.Hooks()
	if len(hooks) != 2 || hooks[0].Name != "alpha" || hooks[1].Name != "zeta" {
		t.Fatalf("hooks = %+v", hooks)
	}
	a := hooks[0]
	if a.Kind != KindAfterTurn || a.Origin != OriginUser || a.Timeout != 7*time.Second ||
		len(a.Digest) != 64 || !filepath.IsAbs(a.Dir) || !a.Covers("anything") {
		t.Errorf("alpha = %+v", a)
	}
	if z := hooks[1]; z.Origin != OriginProject || !z.Covers("bash") || z.Covers("read_file") {
		t.Errorf("zeta = %+v", z)
	}
}

func TestMissingHookFoldersAreFine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	set, problems := Load(filepath.Join(dir, "no"), "")
	if len(problems) != 0 || len(set.Hooks()) != 0 {
		t.Errorf("set = %+v, problems = %v", set, problems)
	}
}

func TestProjectHookShadowsUserHook(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	project := f.hook("fmt", KindPreTool, []string{"*"}, "true")
	user := f.rawHook(f.userDir, "fmt", `{"name":"fmt","hook":"pre_tool","tools":["*"]}`, okRun)

	set, problems := Load(f.hooksDir, f.userDir)

	if hooks := set.Hooks(); len(hooks) != 1 || hooks[0].Origin != OriginProject {
		t.Fatalf("hooks = %+v", hooks)
	}
	if len(problems) != 1 || problems[0].Where != user || !strings.Contains(problems[0].Err, "shadowed by the hook of the same name in "+project) {
		t.Errorf("problems = %v", problems)
	}
}

// Each invalid hook is reported, naming the file and the field, with what
// to do.
func TestInvalidHooksAreReported(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, manifest, run string
		file                string
		want                string
	}{
		{"unknown-key", `{"name":"unknown-key","hook":"pre_tool","tools":["*"],"matcher":"x"}`, okRun, manifestFile, `field "matcher": unknown field; remove it`},
		{"case-key", `{"Name":"case-key","hook":"pre_tool","tools":["*"]}`, okRun, manifestFile, `field "Name": unknown field`},
		{"dup-key", `{"name":"dup-key","name":"dup-key","hook":"pre_tool","tools":["*"]}`, okRun, manifestFile, `duplicate key "name"`},
		{"no-name", `{"hook":"pre_tool","tools":["*"]}`, okRun, manifestFile, `field "name": missing; add it`},
		{"mismatch", `{"name":"other","hook":"pre_tool","tools":["*"]}`, okRun, manifestFile, `field "name": is "other" but the folder is named "mismatch"`},
		{"Upper", `{"name":"Upper","hook":"pre_tool","tools":["*"]}`, okRun, manifestFile, `field "name": "Upper" is not allowed`},
		{"bad-kind", `{"name":"bad-kind","hook":"pre-tool","tools":["*"]}`, okRun, manifestFile, `field "hook": must be one of "pre_tool", "post_tool", `},
		{"no-tools", `{"name":"no-tools","hook":"pre_tool"}`, okRun, manifestFile, `field "tools": missing`},
		{"star-tools", `{"name":"star-tools","hook":"pre_tool","tools":"*"}`, okRun, manifestFile, `field "tools": must be an array`},
		{"empty-tools", `{"name":"empty-tools","hook":"pre_tool","tools":[]}`, okRun, manifestFile, `field "tools": empty`},
		{"mixed-star", `{"name":"mixed-star","hook":"pre_tool","tools":["*","bash"]}`, okRun, manifestFile, `field "tools": "*" already covers every tool`},
		{"twice", `{"name":"twice","hook":"pre_tool","tools":["bash","bash"]}`, okRun, manifestFile, `field "tools": "bash" is listed twice`},
		{"zero-timeout", `{"name":"zero-timeout","hook":"pre_tool","tools":["*"],"timeout":0}`, okRun, manifestFile, `field "timeout": must be a whole number of seconds from 1 to 60, got 0`},
		{"long-timeout", `{"name":"long-timeout","hook":"pre_tool","tools":["*"],"timeout":61}`, okRun, manifestFile, `field "timeout": must be a whole number`},
		{"frac-timeout", `{"name":"frac-timeout","hook":"pre_tool","tools":["*"],"timeout":1.5}`, okRun, manifestFile, `got 1.5`},
		{"str-timeout", `{"name":"str-timeout","hook":"pre_tool","tools":["*"],"timeout":"5"}`, okRun, manifestFile, `field "timeout"`},
		{"trailing", `{"name":"trailing","hook":"pre_tool","tools":["*"]} {}`, okRun, manifestFile, "more after the JSON value"},
		{"not-object", `["trailing"]`, okRun, manifestFile, "expected a JSON object"},
		{"no-manifest", ``, okRun, manifestFile, "missing; create it"},
		{"no-run", `{"name":"no-run","hook":"pre_tool","tools":["*"]}`, ``, runFile, "missing; add the executable"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			dir := f.rawHook(f.hooksDir, c.name, c.manifest, c.run)
			_, problems := Load(f.hooksDir, "")
			if len(problems) != 1 {
				t.Fatalf("problems = %v, want one", problems)
			}
			t.Log(problems[0])
			if p := problems[0]; p.Where != filepath.Join(dir, c.file) || !strings.Contains(p.Err, c.want) {
				t.Errorf("problem = %s\nwant %s: …%s…", p, filepath.Join(dir, c.file), c.want)
			}
		})
	}
}

func TestRunMustBeExecutable(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dir := f.hook("guard", KindPreTool, []string{"*"}, "true")
	if err := os.Chmod(filepath.Join(dir, runFile), 0o644); err != nil {
		t.Fatal(err)
	}
	_, problems := Load(f.hooksDir, "")
	if len(problems) != 1 || !strings.Contains(problems[0].Err, "is not executable; run: chmod +x "+filepath.Join(dir, runFile)) {
		t.Errorf("problems = %v", problems)
	}
}

func TestBundleSymlinks(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	outside := f.evidence("outside.sh")
	f.write(outside, "echo hi\n", 0o644)

	inside := f.hook("inside", KindPreTool, []string{"*"}, "true")
	f.write(filepath.Join(inside, "real.sh"), "echo hi\n", 0o644)
	if err := os.Symlink("real.sh", filepath.Join(inside, "alias.sh")); err != nil {
		t.Fatal(err)
	}
	escaping := f.hook("escaping", KindPreTool, []string{"*"}, "true")
	if err := os.Symlink(outside, filepath.Join(escaping, "lib.sh")); err != nil {
		t.Fatal(err)
	}
	relEscape := f.hook("rel-escape", KindPreTool, []string{"*"}, "true")
	if err := os.Symlink("../escaping/run", filepath.Join(relEscape, "lib.sh")); err != nil {
		t.Fatal(err)
	}
	toDir := f.hook("to-dir", KindPreTool, []string{"*"}, "true")
	if err := os.Symlink(".", filepath.Join(toDir, "loop")); err != nil {
		t.Fatal(err)
	}

	set, problems := Load(f.hooksDir, "")

	if hooks := set.Hooks(); len(hooks) != 1 || hooks[0].Name != "inside" {
		t.Errorf("valid hooks = %+v, want only inside", hooks)
	}
	want := map[string]string{
		filepath.Join(escaping, "lib.sh"):  "leads outside the hook folder",
		filepath.Join(relEscape, "lib.sh"): "leads outside the hook folder",
		filepath.Join(toDir, "loop"):       "is a symlink to a folder",
	}
	if len(problems) != len(want) {
		t.Fatalf("problems = %v", problems)
	}
	for _, p := range problems {
		if !strings.Contains(p.Err, want[p.Where]) || want[p.Where] == "" {
			t.Errorf("unexpected problem %s", p)
		}
	}
}

func TestSpecialFilesAreRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dir := f.hook("fifo", KindPreTool, []string{"*"}, "true")
	if err := mkfifo(filepath.Join(dir, "pipe")); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	_, problems := Load(f.hooksDir, "")
	if len(problems) != 1 || !strings.Contains(problems[0].Err, "special file") {
		t.Errorf("problems = %v", problems)
	}
}

func TestStrayFilesAreReportedAndHiddenOnesIgnored(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.write(filepath.Join(f.hooksDir, "guard.json"), "{}", 0o644)
	f.write(filepath.Join(f.hooksDir, ".DS_Store"), "", 0o644)
	_, problems := Load(f.hooksDir, "")
	if len(problems) != 1 || !strings.Contains(problems[0].Err, "not a hook folder") {
		t.Errorf("problems = %v", problems)
	}
}

// A folder that is not a valid hook still blocks: every pre_tool call when
// its manifest cannot be read, the calls it names otherwise.
func TestInvalidHooksBlockWhatTheyMightGuard(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.rawHook(f.hooksDir, "broken", `{"name":"broken","hook":"pre_tool","tools":["*"],`, okRun)
	f.rawHook(f.hooksDir, "scoped", `{"name":"scoped","hook":"pre_tool","tools":["write_file"]}`, "")
	r := f.runner()

	wantBlocked(t, preBash(r, "ls"), "broken", `hook "broken" cannot be used:`, "manifest.json: not a valid JSON object")
	res := r.PreTool(context.Background(), "write_file", "c", "", json.RawMessage(`{}`))
	wantBlocked(t, res, "broken")

	if err := os.WriteFile(filepath.Join(f.hooksDir, "broken", manifestFile), []byte(`{"name":"broken","hook":"after_turn","tools":["*"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r = f.runner()
	wantAllowed(t, preBash(r, "ls"))
	res = r.PreTool(context.Background(), "write_file", "c", "", json.RawMessage(`{}`))
	wantBlocked(t, res, "scoped", "run: missing")

	statuses := r.Status()
	if statuses[1].Name != "scoped" || statuses[1].State != StateInvalid || !strings.Contains(statuses[1].Err, "missing") {
		t.Errorf("status = %+v", statuses[1])
	}
	if err := r.Approve("scoped"); err == nil || !strings.Contains(err.Error(), "cannot be approved") {
		t.Errorf("approving an invalid hook: %v", err)
	}
}

func TestStatusShowsTheManifestForReview(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	manifest := `{"name":"guard","hook":"pre_tool","tools":["bash"]}`
	f.rawHook(f.hooksDir, "guard", manifest, okRun)
	r := f.runner()
	s := r.Status()
	if len(s) != 1 || s[0].Manifest != manifest || s[0].State != StatePending || s[0].Approved != nil {
		t.Fatalf("status = %+v", s)
	}
	if err := r.Approve("guard"); err != nil {
		t.Fatal(err)
	}
	s = r.Status()
	if s[0].State != StateApproved || s[0].Approved.Digest != s[0].Digest || s[0].Approved.Manifest.Tools[0] != "bash" {
		t.Errorf("status after approval = %+v", s[0])
	}
}
