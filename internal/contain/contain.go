// Package contain decides whether a command line stays inside the
// sandbox, so that the gate can run it without asking (the on-request
// approval policy, issue 28). A command the sandbox holds in costs
// nothing outside the workspace and checkpoints undo what it does inside;
// a command that would leave it (reach the network, write a path outside
// the writable folders) or that the analysis cannot see through is still
// asked about.
//
// The answer is only as good as two things: the sandbox really holding
// (Box.Holds: every protection enforced on this machine, the network
// cut off), and the shell analysis. Where either is missing, nothing is
// contained and today's asking applies.
package contain

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/shiro-neko/shiro/internal/shellguard"
)

// Box is what the sandbox promises about every command it runs.
type Box interface {
	// Holds says every protection of the sandbox is enforced on this
	// machine and the network is cut off; why says what is missing.
	Holds() (ok bool, why string)
	// Writable reports whether commands may write path (absolute).
	Writable(path string) bool
	// Workspace is where commands start; Home the home directory.
	Workspace() string
	Home() string
}

// Check says why the command lines would leave the box, or "" when every
// one of them stays inside it.
func Check(box Box, lines []*shellguard.Analysis) string {
	if box == nil {
		return "there is no sandbox"
	}
	if ok, why := box.Holds(); !ok {
		return why
	}
	for _, a := range lines {
		if why := checkLine(box, a); why != "" {
			return why
		}
	}
	return ""
}

func checkLine(box Box, a *shellguard.Analysis) string {
	if a == nil || a.ParseErr() != nil {
		return "the command line could not be parsed"
	}
	cmds, err := a.Effective()
	if err != nil {
		return fmt.Sprintf("what the command line runs is decided at run time (%v)", err)
	}
	for _, s := range a.Scripts() {
		if s.Approximate {
			return "the command line hands a shell a script decided at run time"
		}
	}
	for _, c := range cmds {
		if why := reachesNetwork(c); why != "" {
			return why
		}
	}
	for _, g := range a.Git() {
		if why := gitNetwork(g); why != "" {
			return why
		}
	}
	for _, r := range a.Redirects() {
		if strings.HasPrefix(r.Target, "/dev/tcp/") || strings.HasPrefix(r.Target, "/dev/udp/") {
			return fmt.Sprintf("the command line opens a network connection (%s)", r.Target)
		}
	}
	for _, acc := range a.Accesses() {
		if !acc.Write {
			continue
		}
		if p, ok := absolute(box, acc); ok && !harmlessDevice(p) && !box.Writable(p) {
			return fmt.Sprintf("%q writes %s, outside the folders the sandbox lets commands write", acc.Command, p)
		}
	}
	return ""
}

// absolute is the file an access names, when the line fixes it: an
// absolute path, one under ~, or a relative one from where the line
// starts. A path decided at run time is left to the sandbox, which
// refuses it if it lies outside (and the denial is offered then).
func absolute(box Box, acc shellguard.Access) (string, bool) {
	var b strings.Builder
	for i, part := range acc.Path.Parts {
		switch {
		case part.Kind == shellguard.PathText || part.Kind == shellguard.PathName:
			b.WriteString(part.Text)
		case part.Kind == shellguard.PathHome && i == 0 && part.Text == "" && box.Home() != "":
			b.WriteString(box.Home())
		default:
			return "", false
		}
	}
	p := b.String()
	if p == "" {
		return "", false
	}
	if !filepath.IsAbs(p) {
		if len(acc.Dirs) > 0 || acc.AnyDir {
			return "", false
		}
		p = filepath.Join(box.Workspace(), p)
	}
	return filepath.Clean(p), true
}

// harmlessDevice: the devices every command may write, which the
// sandbox grants too.
func harmlessDevice(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero":
		return true
	}
	return strings.HasPrefix(p, "/dev/fd/")
}
