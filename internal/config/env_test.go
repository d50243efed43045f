package config_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/config"
)

// Only the user's own config hands variables on; a project that asks is
// told it was ignored, and a name no variable can have is an error naming
// the file and field.
func TestEnvPassthroughIsTheUsersAlone(t *testing.T) {
	user, warns, err := config.Parse("user.json", []byte(`{"env":{"passthrough":["NPM_TOKEN","DOCKER_HOST"]}}`))
	if err != nil || len(warns) != 0 {
		t.Fatal(err, warns)
	}
	project, _, err := config.Parse("project.json", []byte(`{"env":{"passthrough":["GITHUB_TOKEN"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := config.Resolve(user, project, env(nil), config.Flags{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.EnvPassthrough, []string{"NPM_TOKEN", "DOCKER_HOST"}) {
		t.Errorf("passthrough = %q", s.EnvPassthrough)
	}
	if !slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.Contains(w, "env.passthrough") }) {
		t.Errorf("no warning about the project's passthrough: %q", s.Warnings)
	}
	s, _ = config.Resolve(config.File{}, project, env(nil), config.Flags{})
	if len(s.EnvPassthrough) != 0 {
		t.Errorf("a project alone passed %q through", s.EnvPassthrough)
	}

	for _, bad := range []string{`{"env":{"passthrough":["NPM_TOKEN=x"]}}`, `{"env":{"passthrough":[""]}}`} {
		_, _, err := config.Parse("user.json", []byte(bad))
		if err == nil || !strings.Contains(err.Error(), `user.json: field "env.passthrough[0]"`) {
			t.Errorf("%s: %v", bad, err)
		}
	}
	if _, _, err := config.Parse("user.json", []byte(`{"env":{"passthrough":"NPM_TOKEN"}}`)); err == nil || !strings.Contains(err.Error(), "passthrough") {
		t.Errorf("passthrough as a string: %v", err)
	}
}
