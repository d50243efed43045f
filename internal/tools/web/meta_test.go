package web

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
)

func TestFetchInput(t *testing.T) {
	tl := testTool(newDNS(nil))
	for input, want := range map[string]string{
		`{}`:           `invalid arguments: required: missing properties: ["url"]`,
		`{"url":"  "}`: "invalid arguments: url is required",
		`{"url":"https://x.test","maxChars":499}`:                  "invalid arguments: maxChars must be at least 500; got 499",
		`{"url":"https://x.test","maxChars":30001}`:                "invalid arguments: maxChars must be at most 30000; got 30001",
		`{"url":"::not a url"}`:                                    `invalid arguments: "::not a url" is not a valid URL: parse "::not a url": missing protocol scheme`,
		`{"url":"https://` + strings.Repeat("a", 9000) + `.test"}`: "invalid arguments: the URL is 9013 bytes long; web_fetch takes URLs up to 8192 bytes",
	} {
		_, err := tl.Prepare(json.RawMessage(input))
		var ie *tool.InputError
		if !errors.As(err, &ie) || err.Error() != want {
			t.Errorf("%.60s:\n got %v\nwant the InputError %q", input, err, want)
		}
	}
}

func TestFetchInfo(t *testing.T) {
	ts := Tools(nil, nil, Search{})
	if len(ts) != 2 {
		t.Fatalf("%d tools", len(ts))
	}
	info := ts[0].Info()
	if info.Name != "web_fetch" || info.Set != tool.SetNet || info.Effect != tool.Fetches || info.Kind != protocol.KindFetch ||
		info.Subject != tool.URLSubject || info.Interactive || info.Guidance == "" {
		t.Errorf("info %+v", info)
	}
	// Fetching is not free: it asks by default, and read-only agents keep it.
	if info.Effect.Default() != "ask" || info.Effect.Mutating() {
		t.Errorf("effect %v", info.Effect)
	}
}

func TestFetchPlan(t *testing.T) {
	tl := testTool(newDNS(nil))
	long := "https://docs.example.test/" + strings.Repeat("x", 100)
	for input, want := range map[string]tool.Plan{
		`{"url":"https://go.dev/doc"}`:                  {Subjects: []string{"https://go.dev/doc"}, Title: "https://go.dev/doc"},
		`{"url":" https://go.dev/doc ","maxChars":900}`: {Subjects: []string{" https://go.dev/doc "}, Title: "https://go.dev/doc"},
		`{"url":"https://u:secret@x.test/a"}`:           {Subjects: []string{"https://u:secret@x.test/a"}, Title: "https://u:xxxxx@x.test/a"},
		`{"url":"` + long + `"}`:                        {Subjects: []string{long}, Title: long[:79] + "…"},
	} {
		p, err := tl.Prepare(json.RawMessage(input))
		if err != nil {
			t.Errorf("%s: %v", input, err)
			continue
		}
		if got := p.Plan(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", input, got, want)
		}
		if _, ok := p.(tool.Previewer); ok {
			t.Error("web_fetch changes nothing, yet offers a preview")
		}
	}
}

// TestSchemas holds the schemas of web_fetch and web_search to
// testdata/schemas.golden.json (rewrite it with -update and review the
// diff).
func TestSchemas(t *testing.T) {
	tooltest.SchemasGolden(t, Tools(nil, nil, Search{}), 0)
}
