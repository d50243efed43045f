package config_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/config"
)

func TestSandboxTablesKeepWhatEachFileMaySet(t *testing.T) {
	user, warns, err := config.Parse("user.json", []byte(`{"sandbox":{"mode":"workspace-write","writable":["~/.cache/go-build"],"network":true}}`))
	if err != nil || len(warns) != 0 {
		t.Fatal(err, warns)
	}
	project, _, err := config.Parse("project.json", []byte(`{"sandbox":{"mode":"read-only","writable":["/etc"],"network":false}}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := config.Resolve(user, project, env(nil), config.Flags{Sandbox: "off"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Sandbox.Mode != "workspace-write" || !slices.Equal(s.Sandbox.Writable, []string{"~/.cache/go-build"}) || s.Sandbox.Network == nil || !*s.Sandbox.Network {
		t.Errorf("user sandbox %+v", s.Sandbox)
	}
	if s.ProjectSandbox.Mode != "read-only" || s.ProjectSandbox.Writable != nil || s.ProjectSandbox.Network == nil || *s.ProjectSandbox.Network {
		t.Errorf("project sandbox %+v: a project may choose a mode and turn the network off, nothing else", s.ProjectSandbox)
	}
	if s.SandboxFlag != "off" {
		t.Errorf("flag %q", s.SandboxFlag)
	}
	if !slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.Contains(w, "sandbox.writable") }) {
		t.Errorf("no warning about the project's writable paths: %q", s.Warnings)
	}

	// A project's Unix sockets are not taken either.
	user, _, _ = config.Parse("user.json", []byte(`{"sandbox":{"unixSockets":["/var/run/docker.sock"]}}`))
	project, _, _ = config.Parse("project.json", []byte(`{"sandbox":{"unixSockets":["/run/user/1000/bus"]}}`))
	s, _ = config.Resolve(user, project, env(nil), config.Flags{})
	if !slices.Equal(s.Sandbox.UnixSockets, []string{"/var/run/docker.sock"}) || s.ProjectSandbox.UnixSockets != nil {
		t.Errorf("unix sockets: user %q, project %q", s.Sandbox.UnixSockets, s.ProjectSandbox.UnixSockets)
	}
	if !slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.Contains(w, "sandbox.unixSockets") }) {
		t.Errorf("no warning about the project's Unix sockets: %q", s.Warnings)
	}

	// A project that turns the network on gets a warning, not the network.
	project, _, _ = config.Parse("project.json", []byte(`{"sandbox":{"network":true}}`))
	s, _ = config.Resolve(config.File{}, project, env(nil), config.Flags{})
	if s.ProjectSandbox.Network != nil || len(s.Warnings) == 0 {
		t.Errorf("project network:true gave %+v, warnings %q", s.ProjectSandbox, s.Warnings)
	}

	if _, _, err := config.Parse("user.json", []byte(`{"sandbox":{"writable":"/tmp"}}`)); err == nil || !strings.Contains(err.Error(), "writable") {
		t.Errorf("writable as a string: %v", err)
	}
}

// The per-command limits come from the user's own config only: a project
// that tries to lift them gets a warning, and they stay as the user set them.
func TestSandboxLimitsOnlyFromTheUsersConfig(t *testing.T) {
	user, warns, err := config.Parse("user.json", []byte(`{"sandbox":{"maxProcesses":512,"maxMemoryMB":2048,"maxFileMB":-1}}`))
	if err != nil || len(warns) != 0 {
		t.Fatal(err, warns)
	}
	project, _, err := config.Parse("project.json", []byte(`{"sandbox":{"maxProcesses":-1,"maxMemoryMB":-1}}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := config.Resolve(user, project, env(nil), config.Flags{})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Sandbox; got.MaxProcesses != 512 || got.MaxMemoryMB != 2048 || got.MaxFileMB != -1 {
		t.Errorf("user limits %+v", got)
	}
	if p := s.ProjectSandbox; p.MaxProcesses != 0 || p.MaxMemoryMB != 0 {
		t.Errorf("project limits kept: %+v", p)
	}
	if !slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.Contains(w, "sandbox.maxProcesses") }) {
		t.Errorf("no warning about the project's limits: %q", s.Warnings)
	}
	if _, _, err := config.Parse("user.json", []byte(`{"sandbox":{"maxMemoryMB":"lots"}}`)); err == nil || !strings.Contains(err.Error(), "maxMemoryMB") {
		t.Errorf("maxMemoryMB as a string: %v", err)
	}
}
