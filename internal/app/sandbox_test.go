package app

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/llm/replay"
	"github.com/shiro-neko/shiro/internal/sandbox"
)

func TestSandboxModeFlagWinsAndProjectsOnlyTighten(t *testing.T) {
	for _, c := range []struct {
		user, project, flag string
		want                sandbox.Mode
	}{
		{"", "", "", sandbox.WorkspaceWrite},
		{"off", "", "", sandbox.Off},
		{"workspace-write", "read-only", "", sandbox.ReadOnly},
		{"read-only", "off", "", sandbox.ReadOnly},
		{"", "off", "", sandbox.WorkspaceWrite},
		{"read-only", "read-only", "off", sandbox.Off},
	} {
		s := config.Settings{Sandbox: config.SandboxConfig{Mode: c.user}, ProjectSandbox: config.SandboxConfig{Mode: c.project}, SandboxFlag: c.flag}
		got, err := sandboxMode(s)
		if err != nil || got != c.want {
			t.Errorf("user %q, project %q, flag %q: %v, %v; want %v", c.user, c.project, c.flag, got, err, c.want)
		}
	}
	if _, err := sandboxMode(config.Settings{SandboxFlag: "full"}); err == nil || !strings.Contains(err.Error(), "--sandbox") {
		t.Errorf("a bad flag: %v", err)
	}
}

func TestSandboxPolicyExpandsWritablePathsAndHonoursNetwork(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip(err)
	}
	on, off := true, false
	l := Loaded{Paths: config.Paths{Home: "/state-home"}, Settings: config.Settings{
		Sandbox: config.SandboxConfig{Writable: []string{"~/.cache/go-build", "build/out", "/abs"}, Network: &on,
			UnixSockets: []string{"/var/run/docker.sock", "~/.agent.sock"}},
		ProjectSandbox: config.SandboxConfig{Network: &off, UnixSockets: []string{"/run/evil.sock"}},
	}}
	p, err := sandboxPolicy(l, "/ws")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(home, ".cache/go-build"), "/ws/build/out", "/abs"}
	if !slices.Equal(p.Writable, want) {
		t.Errorf("writable %q, want %q", p.Writable, want)
	}
	if p.Network {
		t.Error("a project's network: false did not turn the network off")
	}
	if want := []string{"/var/run/docker.sock", filepath.Join(home, ".agent.sock")}; !slices.Equal(p.UnixSockets, want) {
		t.Errorf("unix sockets %q, want %q (the user's only)", p.UnixSockets, want)
	}
	if p.State != "/state-home/.shiro-neko" || p.ConfigFile != "/state-home/.shiro-neko/config.json" || p.Workspace != "/ws" {
		t.Errorf("policy %+v", p)
	}
}

func TestYoloNeedsTheSandboxOrAnExplicitOff(t *testing.T) {
	off := Loaded{Settings: config.Settings{Sandbox: config.SandboxConfig{Mode: "off"}}}
	if err := off.CheckYolo(); err == nil || !strings.Contains(err.Error(), "--sandbox off") {
		t.Errorf("--yolo with sandbox.mode off in config: %v", err)
	}
	off.Settings.SandboxFlag = "off"
	if err := off.CheckYolo(); err != nil {
		t.Errorf("--yolo --sandbox off: %v", err)
	}
	def := Loaded{Cwd: t.TempDir()}
	err := def.CheckYolo()
	if ok, _ := sandbox.Available(); ok != (err == nil) {
		t.Errorf("--yolo with the default sandbox where available=%v: %v", ok, err)
	}
	// On a machine without Landlock: refused, with the reason and the way
	// out, unless --sandbox off says so explicitly.
	noLandlock := func() (bool, string) { return false, "this Linux kernel has no Landlock" }
	allKept := func() (string, error) { return "", nil }
	err = checkYolo(config.Settings{}, noLandlock, allKept)
	if err == nil || !strings.Contains(err.Error(), "no Landlock") || !strings.Contains(err.Error(), "--sandbox off") {
		t.Errorf("--yolo without Landlock: %v", err)
	}
	if err := checkYolo(config.Settings{SandboxFlag: "read-only"}, noLandlock, allKept); err == nil {
		t.Error("--yolo --sandbox read-only without Landlock started")
	}
	if err := checkYolo(config.Settings{SandboxFlag: "off"}, noLandlock, allKept); err != nil {
		t.Errorf("--yolo --sandbox off without Landlock: %v", err)
	}
	// With Landlock but a protection missing (the private mounts failed):
	// refused the same way, saying what is missing.
	landlock := func() (bool, string) { return true, "" }
	partial := func() (string, error) {
		return "sandbox: .git/hooks, .git/config are NOT kept read-only (user namespaces are disabled); see `shiro sandbox`", nil
	}
	err = checkYolo(config.Settings{}, landlock, partial)
	if err == nil || !strings.Contains(err.Error(), "NOT kept read-only (user namespaces are disabled)") || !strings.Contains(err.Error(), "--sandbox off") {
		t.Errorf("--yolo with the mounts missing: %v", err)
	}
	if err := checkYolo(config.Settings{SandboxFlag: "workspace-write"}, landlock, partial); err == nil {
		t.Error("--yolo --sandbox workspace-write with the mounts missing started")
	}
	if err := checkYolo(config.Settings{SandboxFlag: "off"}, landlock, partial); err != nil {
		t.Errorf("--yolo --sandbox off with the mounts missing: %v", err)
	}
	if err := checkYolo(config.Settings{}, landlock, allKept); err != nil {
		t.Errorf("--yolo with everything enforced: %v", err)
	}
}

func TestOpenPutsEveryCommandBehindTheSandbox(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	env := map[string]string{"SHIRO_HOME": home, "SHIRO_API_KEY": "k", "HOME": home}
	l, err := Load(func(k string) string { return env[k] }, work, config.Flags{Provider: "replay", Sandbox: "read-only"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := Open(t.Context(), Options{Loaded: l, Provider: replay.New("t", nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if a.Sandbox == nil || a.Env.Launcher != a.sandboxSwitch || a.sandboxSwitch.Current() != a.Sandbox || a.Sandbox.Policy().Mode != sandbox.ReadOnly {
		t.Errorf("sandbox %v, launcher %v", a.Sandbox, a.Env.Launcher)
	}
	if _, err := Load(func(k string) string { return env[k] }, work, config.Flags{Provider: "replay", Sandbox: "danger"}); err == nil || !strings.Contains(err.Error(), "--sandbox") {
		t.Errorf("a bad --sandbox loaded: %v", err)
	}
	if err := os.MkdirAll(filepath.Join(work, ".shiro"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, ".shiro", "config.json"), []byte(`{"sandbox":{"mode":"sometimes"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(func(k string) string { return env[k] }, work, config.Flags{Provider: "replay"}); err == nil || !strings.Contains(err.Error(), `"sandbox.mode"`) {
		t.Errorf("a bad sandbox.mode loaded: %v", err)
	}
}
