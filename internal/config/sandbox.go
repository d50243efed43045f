package config

// SandboxConfig is the `sandbox` object: how commands run for the model
// are confined (see docs/sandbox.md).
type SandboxConfig struct {
	// Mode is read-only, workspace-write (the default) or off.
	Mode string `json:"mode,omitempty"`
	// Writable are more paths commands may write in workspace-write: the
	// usual caches, say. "~/" is the home directory; a relative path is
	// taken from the workspace. Only the user's own config may add them.
	Writable []string `json:"writable,omitempty"`
	// Network lets commands connect out. Only the user's own config may
	// turn it on; a project may turn it off.
	Network *bool `json:"network,omitempty"`
	// UnixSockets are the Unix sockets outside the workspace commands may
	// connect to (a Docker socket, say); "~/" is the home directory. Only
	// the user's own config may list them.
	UnixSockets []string `json:"unixSockets,omitempty"`
	// MaxProcesses, MaxMemoryMB and MaxFileMB bound each command: the
	// processes and threads it may add, its memory, the size of a file it
	// writes. Zero (unset) takes the default, a negative value lifts the
	// limit. Only the user's own config may set them.
	MaxProcesses int `json:"maxProcesses,omitempty"`
	MaxMemoryMB  int `json:"maxMemoryMB,omitempty"`
	MaxFileMB    int `json:"maxFileMB,omitempty"`
}

// applySandbox records the user's and the project's sandbox tables, and
// warns about what a project may not set. Which mode wins is the
// sandbox's business (app resolves it): a project may only choose a
// stricter one.
func (s *Settings) applySandbox(user, project File) {
	if user.Sandbox != nil {
		s.Sandbox = *user.Sandbox
	}
	if project.Sandbox == nil {
		return
	}
	s.ProjectSandbox = SandboxConfig{Mode: project.Sandbox.Mode}
	if n := project.Sandbox.Network; n != nil && !*n {
		s.ProjectSandbox.Network = n
	}
	if len(project.Sandbox.Writable) > 0 || len(project.Sandbox.UnixSockets) > 0 || (project.Sandbox.Network != nil && *project.Sandbox.Network) {
		s.Warnings = append(s.Warnings, "project config: sandbox.writable, sandbox.unixSockets and sandbox.network: true can only be set in your own config (~/.shiro-neko/config.json); ignored")
	}
	if p := project.Sandbox; p.MaxProcesses != 0 || p.MaxMemoryMB != 0 || p.MaxFileMB != 0 {
		s.Warnings = append(s.Warnings, "project config: sandbox.maxProcesses, sandbox.maxMemoryMB and sandbox.maxFileMB can only be set in your own config (~/.shiro-neko/config.json); ignored")
	}
}
