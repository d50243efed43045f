package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// What the launcher (in shiro) spends on a command in workspace-write:
// the plan, a new Landlock ruleset, or the last one again; what the
// helper spends assembling its seccomp filter; and what the checkpoints
// ask after a turn that ran a command (whether commands are confined),
// through Status or Confined.
func BenchmarkPlanParts(b *testing.B) {
	if landlockABI() == 0 {
		b.Skip("no Landlock")
	}
	home, _ := os.UserHomeDir()
	s, err := New(Policy{Workspace: b.TempDir(), Home: home, State: filepath.Join(home, ".shiro-neko")})
	if err != nil {
		b.Fatal(err)
	}
	_, rules := s.planFor(s.policy, false)
	b.Run("launcher: plan", func(b *testing.B) {
		for b.Loop() {
			s.planFor(s.policy, false)
		}
	})
	b.Run("launcher: new Landlock ruleset", func(b *testing.B) {
		b.ReportMetric(float64(len(rules.Read)+len(rules.Write)+len(rules.Devices)+len(rules.List)), "rules")
		for b.Loop() {
			fd, err := rules.ruleset()
			if err != nil {
				b.Fatal(err)
			}
			_ = unix.Close(fd)
		}
	})
	b.Run("launcher: reuse the ruleset", func(b *testing.B) {
		for b.Loop() {
			f, err := s.rulesets.forCommand(rules)
			if err != nil {
				b.Fatal(err)
			}
			_ = f.Close()
		}
	})
	b.Run("turn: Status().Confined", func(b *testing.B) {
		for b.Loop() {
			_ = s.Status().Confined
		}
	})
	b.Run("turn: Confined()", func(b *testing.B) {
		for b.Loop() {
			_ = s.Confined()
		}
	})
	b.Run("helper: seccomp filter", func(b *testing.B) {
		for b.Loop() {
			if _, err := networkFilter(seccompFilter{Inet: seccompStreamOnly, NoUnix: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// What the launcher spends on the plan and the ruleset's key when the
// state folder lies in a busy folder (as SHIRO_HOME under a shared /tmp
// does): a folder of 400 entries, changed just before every command.
func BenchmarkPlanUnderABusyFolder(b *testing.B) {
	if landlockABI() == 0 {
		b.Skip("no Landlock")
	}
	busy := b.TempDir()
	for i := range 400 {
		if err := os.WriteFile(filepath.Join(busy, fmt.Sprintf("entry-%03d", i)), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	state := filepath.Join(busy, "state")
	if err := os.Mkdir(state, 0o700); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(state, "config.json"), nil, 0o600); err != nil {
		b.Fatal(err)
	}
	s, err := New(Policy{Workspace: b.TempDir(), State: state})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		now := time.Now()
		if err := os.Chtimes(busy, now, now); err != nil {
			b.Fatal(err)
		}
		_, rules := s.planFor(s.policy, false)
		if _, err := rulesetKey(rules); err != nil {
			b.Fatal(err)
		}
	}
}
