package shellguard

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corpusCase is one line of a labelled corpus in testdata: the command,
// whether the guard must block it, and the category it belongs to.
type corpusCase struct {
	ID     int    `json:"id"`
	Expect string `json:"expect"` // "block" or "pass"
	Cat    string `json:"cat"`
	Cmd    string `json:"cmd"`
	Quote  string `json:"quote,omitempty"` // when set, the refusal must quote exactly this sub-command
}

func jsonUnmarshal(line string, v any) error { return json.Unmarshal([]byte(line), v) }

func loadCorpus(t *testing.T, name string) []corpusCase {
	t.Helper()
	path := filepath.Join("testdata", name)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []corpusCase
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var c corpusCase
		if err := jsonUnmarshal(sc.Text(), &c); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		if c.Expect != "block" && c.Expect != "pass" {
			t.Fatalf("%s:%d: expect must be block or pass, got %q", path, line, c.Expect)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// categoryMatches maps the corpus's coarse labels onto Verdict.Category:
// the corpus says "git" where the guard says git-push, git-reset…
func categoryMatches(label, category string) bool {
	if label == "git" {
		return strings.HasPrefix(category, "git-")
	}
	return label == category
}

func runCorpus(t *testing.T, name string) {
	cases := loadCorpus(t, name)
	passed := 0
	for _, c := range cases {
		v := Check(c.Cmd)
		switch {
		case c.Expect == "pass" && v != nil:
			t.Errorf("%s #%d should pass, was blocked: %q\n  %s", name, c.ID, c.Cmd, v.Refusal())
		case c.Expect == "block" && v == nil:
			t.Errorf("%s #%d should be blocked (%s), passed: %q", name, c.ID, c.Cat, c.Cmd)
		case v != nil && !categoryMatches(c.Cat, v.Category):
			t.Errorf("%s #%d: category %q, want %q: %q\n  %s", name, c.ID, v.Category, c.Cat, c.Cmd, v.Refusal())
		case v != nil && c.Quote != "" && v.Command != c.Quote:
			t.Errorf("%s #%d: refusal quotes %q, want %q", name, c.ID, v.Command, c.Quote)
		default:
			passed++
		}
	}
	t.Logf("%s: %d/%d classified as labelled", name, passed, len(cases))
}

func TestSharedCorpus(t *testing.T) { runCorpus(t, "guard-corpus.jsonl") }

func TestOwnCases(t *testing.T) { runCorpus(t, "guard-cases.jsonl") }
