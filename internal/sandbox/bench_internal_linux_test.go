package sandbox

import (
	"os"
	"path/filepath"
	"testing"

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
