//go:build unix

package hooks

import (
	"path/filepath"
	"strings"
	"testing"
)

// What Status cannot show, because it is no hook, the runner still
// reports: a stray file in a hooks folder and a shadowed folder. A broken
// hook folder is a hook, so it is in Status (invalid), not here.
func TestRunnerReportsWhatStatusCannotShow(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	stray := filepath.Join(f.hooksDir, "guard.json")
	f.write(stray, "{}", 0o644)
	f.write(filepath.Join(f.hooksDir, ".DS_Store"), "", 0o644)
	f.hook("fmt", KindPreTool, []string{"*"}, "true")
	shadowed := f.rawHook(f.userDir, "fmt", `{"name":"fmt","hook":"pre_tool","tools":["*"]}`, okRun)
	f.rawHook(f.hooksDir, "broken", "", okRun)

	r := f.runner()

	got := r.Unlisted()
	if len(got) != 2 {
		t.Fatalf("unlisted = %v", got)
	}
	if got[0].Where != stray || !strings.Contains(got[0].Err, "not a hook folder") {
		t.Errorf("first = %v, want the stray file", got[0])
	}
	if got[1].Where != shadowed || !strings.Contains(got[1].Err, "shadowed by the hook of the same name") {
		t.Errorf("second = %v, want the shadowed folder", got[1])
	}
	var names []string
	for _, s := range r.Status() {
		names = append(names, s.Name+":"+string(s.State))
	}
	if strings.Join(names, " ") != "broken:invalid fmt:pending" {
		t.Errorf("status = %v", names)
	}
}

func TestNothingUnlistedInTidyHooksFolders(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.hook("fmt", KindPreTool, []string{"*"}, "true")
	if got := f.runner().Unlisted(); len(got) != 0 {
		t.Fatalf("unlisted = %v", got)
	}
	if got := NewRunner(nil, nil, Options{}).Unlisted(); len(got) != 0 {
		t.Fatalf("a runner of no set lists %v", got)
	}
}
