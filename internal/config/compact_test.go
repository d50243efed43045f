package config_test

import (
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/config"
)

// compactAt comes from the user's file; a project's counts only when it is
// lower (compacting sooner), and a value out of range names the field.
func TestCompactAtResolvesWithTheProjectOnlyLowering(t *testing.T) {
	parse := func(name, body string) config.File {
		t.Helper()
		f, _, err := config.Parse(name, []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	for _, tc := range []struct {
		user, project string
		want          float64
	}{
		{`{}`, `{}`, 0},
		{`{"compactAt": 0.7}`, `{}`, 0.7},
		{`{"compactAt": 0.7}`, `{"compactAt": 0.5}`, 0.5},
		{`{"compactAt": 0.5}`, `{"compactAt": 0.9}`, 0.5},
		{`{}`, `{"compactAt": 0.6}`, 0.6},
	} {
		s, err := config.Resolve(parse("config.json", tc.user), parse(".shiro/config.json", tc.project), env(nil), config.Flags{})
		if err != nil {
			t.Fatal(err)
		}
		if s.CompactAt != tc.want {
			t.Errorf("user %s, project %s: compactAt %v, want %v", tc.user, tc.project, s.CompactAt, tc.want)
		}
	}
	for _, body := range []string{`{"compactAt": 0}`, `{"compactAt": 1.5}`} {
		_, _, err := config.Parse("config.json", []byte(body))
		if err == nil || !strings.Contains(err.Error(), `config.json: field "compactAt" must be a share of the context window`) {
			t.Errorf("%s: %v", body, err)
		}
	}
}
