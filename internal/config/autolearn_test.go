package config_test

import (
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/config"
)

// autoLearn is on unless the person's config turns it off; a project may
// turn it off for everyone who clones it, but not on, and is told so.
func TestAutoLearnSwitch(t *testing.T) {
	parse := func(name, text string) config.File {
		t.Helper()
		f, warns, err := config.Parse(name, []byte(text))
		if err != nil || len(warns) != 0 {
			t.Fatalf("%s: warns=%v err=%v", text, warns, err)
		}
		return f
	}
	for _, c := range []struct {
		user, project string
		want          bool
		warn          bool
	}{
		{`{}`, `{}`, true, false},
		{`{"autoLearn": false}`, `{}`, false, false},
		{`{}`, `{"autoLearn": false}`, false, false},
		{`{"autoLearn": false}`, `{"autoLearn": true}`, false, true},
	} {
		s, err := config.Resolve(parse("user.json", c.user), parse("project.json", c.project), env(nil), config.Flags{})
		if err != nil {
			t.Fatal(err)
		}
		if s.AutoLearn != c.want {
			t.Errorf("user %s, project %s: AutoLearn = %v, want %v", c.user, c.project, s.AutoLearn, c.want)
		}
		warned := strings.Contains(strings.Join(s.Warnings, "\n"), "autoLearn")
		if warned != c.warn {
			t.Errorf("user %s, project %s: warnings %q, want a word on autoLearn: %v", c.user, c.project, s.Warnings, c.warn)
		}
	}
	if _, _, err := config.Parse("c.json", []byte(`{"autoLearn": "yes"}`)); err == nil || !strings.Contains(err.Error(), "autoLearn") {
		t.Fatalf("a string autoLearn: err = %v, want one naming the field", err)
	}
}
