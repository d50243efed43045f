package claudecode

import (
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/permission"
)

// The user's defaultMode may be any of shiro's modes; a project's file
// may only make the start stricter, and what shiro does not take is
// reported with its file.
func TestStartMode(t *testing.T) {
	file := func(scope Scope, mode string) Settings {
		return Settings{Name: string(scope) + ".json", Scope: scope, Permissions: Permissions{DefaultMode: mode}}
	}
	cases := []struct {
		name    string
		files   []Settings
		want    permission.Mode
		problem string
	}{
		{"none", []Settings{file(ScopeUser, "")}, permission.ModeDefault, ""},
		{"user accept edits", []Settings{file(ScopeUser, "acceptEdits")}, permission.ModeAcceptEdits, ""},
		{"project plan over user accept edits", []Settings{file(ScopeUser, "acceptEdits"), file(ScopeProject, "plan")}, permission.ModePlan, ""},
		{"project may not loosen", []Settings{file(ScopeProject, "acceptEdits")}, permission.ModeDefault, "project.json: permissions.defaultMode: \"acceptEdits\": ignored"},
		{"local counts as the project", []Settings{file(ScopeUser, "plan"), file(ScopeLocal, "default")}, permission.ModePlan, "only choose a stricter mode"},
		{"bypass refused", []Settings{file(ScopeUser, "bypassPermissions")}, permission.ModeDefault, "use --yolo"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, problems := StartMode(c.files)
			if got != c.want {
				t.Fatalf("mode = %s, want %s", got, c.want)
			}
			var said []string
			for _, p := range problems {
				said = append(said, p.String())
			}
			if all := strings.Join(said, "\n"); (c.problem == "") != (all == "") || !strings.Contains(all, c.problem) {
				t.Fatalf("problems = %q, want one saying %q", all, c.problem)
			}
		})
	}
}
