package sandbox

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestSeatbeltProfileConfinesLikeLandlock(t *testing.T) {
	p := Policy{Mode: WorkspaceWrite, Workspace: "/Users/u/proj", Home: "/Users/u", State: "/Users/u/.shiro-neko",
		Temp: "/private/var/folders/xy/T", Writable: []string{`/Users/u/Library/Caches/go "build"`}}
	profile := p.seatbeltProfile([]string{"/Users/u/.ssh", "/Users/u/.shiro-neko/config.json"})
	for _, want := range []string{
		"(version 1)\n(deny default)\n",
		"(allow process-fork)",
		"(allow signal (target same-sandbox))",
		// reads: everywhere but the secrets
		"(allow file-read*\n  (require-all\n    (subpath \"/\")\n    (require-not (subpath \"/Users/u/.ssh\"))\n    (require-not (subpath \"/Users/u/.shiro-neko/config.json\"))\n  ))",
		// writes: the roots, quoted safely
		"(subpath \"/Users/u/proj\")", "(subpath \"/private/var/folders/xy/T\")",
		`(subpath "/Users/u/Library/Caches/go \"build\"")`,
		// but not what stays read-only, nor the workspace and .git themselves
		"(require-not (literal \"/Users/u/proj\"))",
		"(require-not (literal \"/Users/u/proj/.git\"))",
		"(require-not (subpath \"/Users/u/proj/.git/hooks\"))",
		"(require-not (literal \"/Users/u/proj/.git/config\"))",
		// and the redirects, whether they exist or not
		"(require-not (subpath \"/Users/u/proj/.git/commondir\"))",
		"(require-not (subpath \"/Users/u/proj/.git/info\"))",
		"(require-not (subpath \"/Users/u/proj/.shiro\"))",
		"(require-not (subpath \"/Users/u/.shiro-neko\"))",
		"(literal \"/dev/null\")",
		";; network: off",
	} {
		if !strings.Contains(profile, want) {
			t.Errorf("profile lacks %q:\n%s", want, profile)
		}
	}
	for _, not := range []string{"(allow network", "com.apple.dnssd.service", "(allow file-write* (subpath \"/\")"} {
		if strings.Contains(profile, not) {
			t.Errorf("profile holds %q:\n%s", not, profile)
		}
	}
	if strings.Count(profile, "(") != strings.Count(profile, ")") {
		t.Errorf("unbalanced parentheses:\n%s", profile)
	}

	p.Network = true
	if on := p.seatbeltProfile(nil); !strings.Contains(on, "(allow network*)") || !strings.Contains(on, "com.apple.dnssd.service") {
		t.Errorf("network on:\n%s", on)
	}
	p.Mode = ReadOnly
	if ro := p.seatbeltProfile(nil); strings.Contains(ro, "(allow file-write*") {
		t.Errorf("read-only mode grants writes:\n%s", ro)
	}
}

// A workspace that is a bare repository has its hooks and config at its
// top; they stay read-only as a .git folder's do.
func TestSeatbeltProfileKeepsABareRepositorysHooksAndConfig(t *testing.T) {
	ws := bareRepo(t)
	profile := Policy{Mode: WorkspaceWrite, Workspace: ws, Temp: "/tmp"}.seatbeltProfile(nil)
	for _, want := range []string{
		"(require-not (subpath " + sbString(filepath.Join(ws, "hooks")) + "))",
		"(require-not (literal " + sbString(filepath.Join(ws, "config")) + "))",
	} {
		if !strings.Contains(profile, want) {
			t.Errorf("profile lacks %q:\n%s", want, profile)
		}
	}
}
