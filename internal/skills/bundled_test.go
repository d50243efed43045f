package skills

import (
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var bundledNames = []string{
	"accessibility", "api-design", "ci-cd", "commit", "data", "db", "debug", "deps", "docker",
	"docs", "frontend", "git-workflow", "i18n", "incident", "logging", "migrate", "onboarding",
	"optimize-sql", "perf", "perf-frontend", "plan", "readme", "refactor", "release", "review",
	"security", "test", "ux-copy", "verify",
}

// promptBudget bounds the bundled catalogue block, which is sent with every
// request: a new or longer description must fit or consciously raise it.
const promptBudget = 4200

func TestBundledCatalogue(t *testing.T) {
	cat, problems := Load(Sources{})
	if len(problems) != 0 {
		t.Fatalf("bundled skills have problems: %v", problems)
	}
	if got := cat.Names(); !slices.Equal(got, bundledNames) {
		t.Fatalf("bundled names =\n%v\nwant\n%v", got, bundledNames)
	}
	files, err := fs.Glob(bundledFiles, "bundled/*.md")
	if err != nil || len(files) != len(bundledNames) {
		t.Fatalf("embedded %d files (%v), want %d", len(files), err, len(bundledNames))
	}
	for _, s := range cat.List() {
		if s.Origin != OriginBundled || s.Path != "bundled/"+s.Name+".md" || s.Overrode != "" {
			t.Errorf("%s: origin %s, path %s, overrode %q", s.Name, s.Origin, s.Path, s.Overrode)
		}
		if !strings.HasPrefix(s.Description, "Use when ") {
			t.Errorf("%s: description must say when to load it: %q", s.Name, s.Description)
		}
		if lines := strings.Count(s.Body, "\n") + 1; lines < 25 || lines > 80 {
			t.Errorf("%s: body has %d lines, want 25–80", s.Name, lines)
		}
		if !strings.HasPrefix(s.Body, "# ") {
			t.Errorf("%s: body should open with a heading", s.Name)
		}
		if strings.Contains(s.Body, "[Skill cut here") || len(s.Extra) != 0 {
			t.Errorf("%s: cut or carries extra keys", s.Name)
		}
		// Skills refer to each other by name; every reference must exist.
		for _, ref := range referencedSkills(s.Body) {
			if _, ok := cat.Get(ref); !ok {
				t.Errorf("%s refers to a %q skill that does not exist", s.Name, ref)
			}
		}
	}
	size := len(cat.PromptSection())
	t.Logf("bundled PromptSection: %d bytes", size)
	if size > promptBudget {
		t.Errorf("bundled PromptSection is %d bytes, over the %d budget", size, promptBudget)
	}
}

// skillMention matches "the X skill" and "(X skill" in a body.
var skillMention = regexp.MustCompile(`(?:\bthe |\()([a-z0-9][a-z0-9-]*) skill\b`)

func referencedSkills(body string) []string {
	var refs []string
	for _, m := range skillMention.FindAllStringSubmatch(body, -1) {
		refs = append(refs, m[1])
	}
	return refs
}

// The workflow policy tells the model to load `plan` before non-trivial
// work; these are the behaviours the brief pins for the three core skills.
func TestCoreSkillsSayWhatTheyMust(t *testing.T) {
	cat, _ := Load(Sources{})
	must := map[string][]string{
		"plan":   {"spec", "Acceptance checks", "todo_write", "in_progress", "run its check"},
		"verify": {"should work", "Run the narrowest check", "can fail", "cannot run"},
		"debug":  {"Reproduce", "three hypotheses", "cheapest", "cause, not the symptom", "regression test"},
	}
	for name, phrases := range must {
		s, _ := cat.Get(name)
		for _, p := range phrases {
			if !strings.Contains(s.Body+s.Description, p) {
				t.Errorf("%s does not mention %q", name, p)
			}
		}
	}
}
