// Package sandbox confines the commands shiro runs for the model to the
// workspace: Landlock, seccomp and private mounts on Linux, Seatbelt on
// macOS. A Sandbox is the proc.Launcher every command goes through and the
// proc.Explainer that says when a failure was the sandbox's doing; where
// the machine offers no sandbox, it says so rather than running commands
// unconfined in silence (docs/sandbox.md).
package sandbox
