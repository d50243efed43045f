package app

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/llm/replay"
	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// Allowing a refused folder for the project widens this session's
// sandbox, and is kept in the user's grants, keyed by the workspace, so
// the next session here starts with it (and a session elsewhere does not).
func TestAProjectGrantOutlivesTheSession(t *testing.T) {
	work, home, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
	// Outside /tmp, which the sandbox lets commands write anyway.
	outside, err := os.MkdirTemp("/var/tmp", "shiro-grant-test-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(outside) })
	env := map[string]string{"SHIRO_HOME": home, "SHIRO_API_KEY": "k", "HOME": home}
	getenv := func(k string) string { return env[k] }
	l, err := Load(getenv, work, config.Flags{Provider: "replay"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := Open(t.Context(), Options{Loaded: l, Provider: replay.New("t", nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	w := a.widener()
	if w == nil {
		t.Skip("commands are not confined here")
	}
	target := filepath.Join(outside, "cache")
	if a.sandboxSwitch.Current().Writable(target) {
		t.Fatal("the folder was writable before it was allowed")
	}
	r := protocol.SandboxRefusal{Path: target}
	if _, err := w.Allow(t.Context(), r, agent.ScopeProject); err != nil {
		t.Fatal(err)
	}
	if !a.sandboxSwitch.Current().Writable(target) || a.Sandbox.Writable(target) {
		t.Fatal("the session's switch was not widened, or the original sandbox was")
	}
	data, err := os.ReadFile(l.Paths.SandboxGrants())
	if err != nil || !strings.Contains(string(data), target) {
		t.Fatalf("grants file: %s %v", data, err)
	}
	next, err := Load(getenv, work, config.Flags{Provider: "replay"})
	if err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.EvalSymlinks(work)
	p, err := sandboxPolicy(next, root)
	if err != nil || !slices.Contains(p.Writable, target) {
		t.Fatalf("the next session's policy: %v %v", p.Writable, err)
	}
	other, err := sandboxPolicy(next, elsewhere)
	if err != nil || slices.Contains(other.Writable, target) {
		t.Fatalf("another project got the grant: %v %v", other.Writable, err)
	}
	if how := w.HowToAllow(protocol.SandboxRefusal{Network: true}); !strings.Contains(how, "sandbox.network") {
		t.Errorf("how to allow the network: %q", how)
	}
}

// The approval policy comes from --approval, else your config; a project
// may only ask for more (untrusted). A bad value names where it is.
func TestTheApprovalPolicyIsYoursAndAProjectMayOnlyAskMore(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	env := map[string]string{"SHIRO_HOME": home, "SHIRO_API_KEY": "k", "HOME": home}
	getenv := func(k string) string { return env[k] }
	write := func(path, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	userConfig := filepath.Join(home, ".shiro-neko", "config.json")
	projectConfig := filepath.Join(work, ".shiro", "config.json")
	for _, c := range []struct {
		user, project, flag string
		want                permission.Approval
		warn                string
	}{
		{"", "", "", permission.OnRequest, ""},
		{"never", "", "", permission.Never, ""},
		{"never", "untrusted", "", permission.Untrusted, ""},
		{"untrusted", "never", "", permission.Untrusted, `approval "never" ignored`},
		{"", "on-request", "", permission.OnRequest, `approval "on-request" ignored`},
		{"untrusted", "", "on-request", permission.OnRequest, ""},
	} {
		write(userConfig, `{"approval":"`+c.user+`"}`)
		write(projectConfig, `{"approval":"`+c.project+`"}`)
		l, err := Load(getenv, work, config.Flags{Provider: "replay", Approval: c.flag})
		if err != nil || l.Approval != c.want {
			t.Errorf("%+v: %v %v", c, l.Approval, err)
			continue
		}
		if warns := strings.Join(l.Warnings(), "\n"); c.warn != "" && !strings.Contains(warns, c.warn) {
			t.Errorf("%+v: warnings %q", c, warns)
		}
	}
	write(projectConfig, `{}`)
	write(userConfig, `{"approval":"sometimes"}`)
	if _, err := Load(getenv, work, config.Flags{Provider: "replay"}); err == nil || !strings.Contains(err.Error(), userConfig) || !strings.Contains(err.Error(), `"approval"`) {
		t.Errorf("a bad approval loaded: %v", err)
	}
}
