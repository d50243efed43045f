package sandbox

import (
	"fmt"
	"path/filepath"
	"strings"
)

// On macOS the sandbox is Apple's Seatbelt, applied by sandbox-exec(1)
// with a profile written here for each command (the filesystem changes
// between commands, and so does the list of secret files). The profile
// language matches paths, not inodes, and a later rule does not override
// an earlier one the way a reader might expect, so every grant carries its
// own exceptions (require-not) rather than relying on a later deny.

// macServices are the system services a command commonly needs: user and
// group lookups, logging, preferences, notifications, and certificate
// checks for TLS. Opening applications or talking to the window server is
// not among them.
func macServices(network bool) []string {
	services := []string{
		"com.apple.system.opendirectoryd.libinfo",
		"com.apple.system.notification_center",
		"com.apple.system.logger",
		"com.apple.logd",
		"com.apple.diagnosticd",
		"com.apple.cfprefsd.daemon",
		"com.apple.cfprefsd.agent",
		"com.apple.FSEvents",
		"com.apple.SecurityServer",
		"com.apple.trustd.agent",
	}
	if network {
		services = append(services, "com.apple.dnssd.service", "com.apple.mDNSResponder")
	}
	return services
}

// seatbeltProfile is the profile for p, with secrets the secret locations
// found now.
func (p Policy) seatbeltProfile(secrets []string) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	w("(version 1)")
	w("(deny default)")
	w(";; processes: the command may start programs and signal its own")
	w("(allow process-fork)")
	w("(allow process-exec)")
	w("(allow process-info* (target same-sandbox))")
	w("(allow signal (target same-sandbox))")
	w("(allow sysctl-read)")
	w("(allow ipc-posix-sem)")
	w("(allow ipc-posix-shm)")
	w("(allow pseudo-tty)")
	w("(allow mach-lookup")
	for _, s := range macServices(p.Network) {
		w("  (global-name %s)", sbString(s))
	}
	w(")")

	w(";; reading: everywhere but the secret locations")
	w("(allow file-read*")
	w("  (require-all")
	w("    (subpath \"/\")")
	for _, s := range secrets {
		w("    (require-not %s)", sbPath(s))
	}
	w("  ))")

	w(";; devices every command may write")
	w("(allow file-write-data file-ioctl")
	for _, d := range []string{"/dev/null", "/dev/zero", "/dev/tty", "/dev/dtracehelper"} {
		w("  (literal %s)", sbString(d))
	}
	w("  (regex #\"^/dev/ttys[0-9]+$\"))")

	if roots := p.writeRoots(); len(roots) > 0 {
		w(";; writing: the workspace, the temp dir and sandbox.writable, but not")
		w(";; what stays read-only, nor the workspace and .git themselves (so")
		w(";; that they cannot be renamed away and replaced)")
		w("(allow file-write*")
		w("  (require-all")
		w("    (require-any")
		for _, r := range roots {
			w("      (subpath %s)", sbString(r))
		}
		w("    )")
		ws := p.Workspace
		w("    (require-not (literal %s))", sbString(ws))
		w("    (require-not (literal %s))", sbString(filepath.Join(ws, ".git")))
		done := map[string]bool{}
		for _, dir := range p.gitDirs() {
			hooks, config := filepath.Join(dir, "hooks"), filepath.Join(dir, "config")
			w("    (require-not (subpath %s))", sbString(hooks))
			w("    (require-not (literal %s))", sbString(config))
			done[hooks], done[config] = true, true
		}
		// The git redirects: Seatbelt matches paths, so those that do not
		// exist yet are kept too.
		for _, path := range p.gitProtectedPaths() {
			if !done[path] {
				w("    (require-not (subpath %s))", sbString(path))
			}
		}
		w("    (require-not (subpath %s))", sbString(filepath.Join(ws, ".shiro")))
		if p.State != "" {
			w("    (require-not (subpath %s))", sbString(p.State))
		}
		for _, s := range secrets {
			w("    (require-not %s)", sbPath(s))
		}
		w("  ))")
	}

	if p.Network {
		w(";; network: on")
		w("(allow network*)")
		w("(allow system-socket)")
	} else {
		w(";; network: off (no network rule is granted)")
	}
	return b.String()
}

// sbPath matches a secret location: the folder and everything beneath
// it (subpath also matches a plain file).
func sbPath(path string) string { return "(subpath " + sbString(path) + ")" }

// sbString quotes s as a profile string.
func sbString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}
