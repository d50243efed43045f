package hooks

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestDecodeVerdict(t *testing.T) {
	cases := []struct {
		out  string
		want verdict
		err  string
	}{
		{`{"allow":true}`, allowVerdict{}, ""},
		{" \n{\"allow\" : true}\n\n", allowVerdict{}, ""},
		{`{"allow":true,"reason":"noted"}`, allowVerdict{}, ""},
		{`{"allow":true,"input":{ "command" : "ls" }}`, allowVerdict{input: json.RawMessage(`{"command":"ls"}`)}, ""},
		{`{"allow":false}`, refuseVerdict{}, ""},
		{`{"allow":false,"reason":"r"}`, refuseVerdict{reason: "r"}, ""},
		{`{"blocked":"x"}`, refuseVerdict{reason: "x"}, ""},
		{`{"blocked":""}`, refuseVerdict{}, ""},
		{``, nil, "no JSON value"},
		{`{`, nil, "ends early"},
		{`{"allow":true}{}`, nil, "more after"},
		{`{"allow":true}garbage`, nil, "more after"},
		{`{"allow":true,"allow":true}`, nil, `duplicate key "allow"`},
		{`{"allow":true,"\u0061llow":true}`, nil, `duplicate key "allow"`},
		{`{"allow":true,"input":{"a":[{"b":1,"b":2}]}}`, nil, `duplicate key "b" in input.a[0]`},
		{`{"allow":null}`, nil, `"allow" must be true or false, got null`},
		{`{"allow":1}`, nil, `got a number`},
		{`{"ALLOW":true}`, nil, `unknown key "ALLOW"`},
		{`{"allow":true,"input":null}`, nil, `"input" must be a JSON object`},
		{`{"allow":true,"input":[1]}`, nil, `"input" must be a JSON object`},
		{`{"allow":false,"input":{}}`, nil, `makes no sense`},
		{`{"allow":false,"reason":5}`, nil, `"reason" must be a string, got a number`},
		{`{"blocked":true}`, nil, `"blocked" must be a string`},
		{`{"blocked":"x","reason":"y"}`, nil, `must stand alone`},
		{`"allow"`, nil, "got a string"},
		{`true`, nil, "got a boolean"},
		{`null`, nil, "got null"},
	}
	for _, c := range cases {
		got, err := decodeVerdict([]byte(c.out))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("decodeVerdict(%q) error = %v, want …%s…", c.out, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("decodeVerdict(%q) = %#v, %v; want %#v", c.out, got, err, c.want)
		}
	}
}

func TestParseManifestAcceptsTheDocumentedShapes(t *testing.T) {
	cases := map[string]Manifest{
		`{"name":"fmt","hook":"pre_tool","tools":["*"]}`:                                      {Name: "fmt", Hook: KindPreTool, Tools: []string{"*"}},
		`{"tools":["bash","mcp__git__push"],"hook":"pre_tool","name":"no-push","timeout":60}`: {Name: "no-push", Hook: KindPreTool, Tools: []string{"bash", "mcp__git__push"}, Timeout: 60},
		`{"name":"0","hook":"after_turn","tools":["*"],"timeout":1}`:                          {Name: "0", Hook: KindAfterTurn, Tools: []string{"*"}, Timeout: 1},
	}
	for in, want := range cases {
		got, err := ParseManifest([]byte(in))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ParseManifest(%s) = %+v, %v", in, got, err)
		}
	}
	long := `{"name":"` + strings.Repeat("a", 41) + `","hook":"pre_tool","tools":["*"]}`
	if _, err := ParseManifest([]byte(long)); err == nil || !strings.Contains(err.Error(), "longer than 40") {
		t.Errorf("41-char name: %v", err)
	}
	many := make([]string, 101)
	for i := range many {
		many[i] = "t" + strings.Repeat("x", i)
	}
	tools, _ := json.Marshal(many)
	if _, err := ParseManifest([]byte(`{"name":"a","hook":"pre_tool","tools":` + string(tools) + `}`)); err == nil ||
		!strings.Contains(err.Error(), "at most 100") {
		t.Errorf("101 tools: %v", err)
	}
}

func TestPrintableDefusesTerminalControl(t *testing.T) {
	if got := printable("ok\x1b]0;title\x07 \xff done\n", 100, false); got != "ok\ufffd]0;title\ufffd \ufffd done" {
		t.Errorf("printable = %q", got)
	}
	if got := printable("abcdef", 3, true); got != "…def" {
		t.Errorf("tail = %q", got)
	}
	if got := printable("abcdef", 3, false); got != "abc…" {
		t.Errorf("head = %q", got)
	}
}
