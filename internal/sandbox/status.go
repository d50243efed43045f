package sandbox

import (
	"fmt"
	"strings"
)

// Status is what the sandbox enforces on this machine, for `shiro
// sandbox`.
type Status struct {
	Mode Mode
	// Enforcement names the mechanism ("Landlock ABI 7"), or says why
	// there is none.
	Enforcement string
	// Confined: commands are confined.
	Confined bool
	// Readable says what commands may read.
	Readable string
	// Writable are the folders commands may write.
	Writable []string
	// Caches are the toolchains' caches among them, each with the tool
	// and the setting that named it.
	Caches []string
	// Secret are the secret locations found on this machine.
	Secret []string
	// Protected says how the read-only paths inside writable folders are
	// kept, or why they are not.
	Protected string
	// Network says what commands may reach.
	Network string
	// Sockets says which Unix sockets commands may connect to; empty
	// where the platform says nothing of them.
	Sockets string
	// Temp says what commands see as the temp folder; empty where the
	// platform says nothing of it.
	Temp string
	// Processes says what happens to processes a command leaves running.
	Processes string
	// Resources says what bounds each command's processes, memory and
	// file sizes, and what does not.
	Resources string
	// Unenforced says what the policy asks for that is not enforced here
	// (as Notice does at start); "" when nothing is missing.
	Unenforced string
	// Notes are what resolving the policy left out.
	Notes []string
}

// String is the report, one setting a line.
func (st Status) String() string {
	var b strings.Builder
	line := func(name, value string) { fmt.Fprintf(&b, "%-11s %s\n", name+":", value) }
	line("mode", st.Mode.String())
	line("enforced by", st.Enforcement)
	if st.Mode != Off {
		line("read", st.Readable)
		switch {
		case st.Mode == ReadOnly:
			line("write", "nothing (but /dev/null and the terminal)")
		default:
			line("write", strings.Join(st.Writable, ", "))
		}
		line("read-only", st.Protected)
		line("network", st.Network)
		if st.Sockets != "" {
			line("sockets", st.Sockets)
		}
		if st.Temp != "" {
			line("temp", st.Temp)
		}
	}
	line("processes", st.Processes)
	if st.Resources != "" {
		line("resources", st.Resources)
	}
	if len(st.Caches) > 0 && st.Mode == WorkspaceWrite {
		b.WriteString("toolchain caches here (writable, found from each tool's settings):\n")
		for _, c := range st.Caches {
			fmt.Fprintf(&b, "  %s\n", c)
		}
	}
	if len(st.Secret) > 0 && st.Mode != Off {
		b.WriteString("secret locations here (neither readable nor writable):\n")
		for _, s := range st.Secret {
			fmt.Fprintf(&b, "  %s\n", s)
		}
	}
	if st.Unenforced != "" {
		fmt.Fprintf(&b, "warning: %s\n", st.Unenforced)
	}
	for _, n := range st.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	return b.String()
}

// commonStatus fills in what does not depend on the platform.
func (s *Sandbox) commonStatus() Status {
	p := s.resolved()
	st := Status{
		Mode:     p.Mode,
		Readable: "everything but the secret locations (~/.ssh, cloud and cluster credentials, key and token files, shiro's own config and trust stores)",
		Writable: p.writeRoots(),
		Notes:    append(append([]string(nil), s.notes...), s.cacheNotes...),
	}
	for _, c := range p.Caches {
		st.Caches = append(st.Caches, fmt.Sprintf("%-6s %s (%s)", c.Tool, s.display(c.Path), c.From))
	}
	for _, secret := range p.secrets() {
		st.Secret = append(st.Secret, s.display(secret))
	}
	return st
}
