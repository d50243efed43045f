package hooks

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/strictjson"

	"github.com/shiro-neko/shiro/internal/trust"
)

func FuzzDecodeVerdict(f *testing.F) {
	for _, seed := range []string{
		`{"allow":true}`, `{"allow":true,"input":{"command":"ls"}}`, `{"allow":false,"reason":"r"}`,
		`{"blocked":"x"}`, `{"allow":true,"allow":false}`, `{"allow":true} {}`, ``, `null`,
		`{"allow":true,"input":{"a":{"b":[1,{"c":2,"c":3}]}}}`, "{\"allow\":true,\"reason\":\"\xff\"}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, out []byte) {
		v, err := decodeVerdict(out)
		if err != nil {
			if v != nil {
				t.Fatal("a verdict together with an error")
			}
			return
		}
		// Anything accepted is one valid JSON object with no duplicate keys.
		if !json.Valid(out) || strictjson.Check(out) != nil {
			t.Fatalf("accepted %q, which is not strict JSON", out)
		}
		switch v := v.(type) {
		case allowVerdict:
			if v.input != nil {
				if len(v.input) == 0 || v.input[0] != '{' || strictjson.Check(v.input) != nil {
					t.Fatalf("rewrite %q is not a strict JSON object", v.input)
				}
				var buf bytes.Buffer
				if json.Compact(&buf, v.input) != nil || !bytes.Equal(buf.Bytes(), v.input) {
					t.Fatalf("rewrite %q is not compact", v.input)
				}
			}
		case refuseVerdict:
		default:
			t.Fatalf("unknown verdict %T", v)
		}
		// Decoding is deterministic.
		again, err := decodeVerdict(out)
		if err != nil || !reflect.DeepEqual(again, v) {
			t.Fatalf("second decode differs: %#v, %v", again, err)
		}
	})
}

func FuzzParseManifest(f *testing.F) {
	for _, seed := range []string{
		`{"name":"fmt","hook":"pre_tool","tools":["*"]}`,
		`{"name":"no-push","hook":"pre_tool","tools":["bash","write_file"],"timeout":30}`,
		`{"name":"n","hook":"after_turn","tools":["*"],"timeout":1.0}`,
		`{"name":"a","name":"b"}`, `{"Name":"x"}`, `[]`, `{"timeout":1e400}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseManifest(data)
		if err != nil {
			if _, ok := err.(*FieldError); !ok {
				t.Fatalf("error %T is not a *FieldError", err)
			}
			return
		}
		if checkName(m.Name) != nil || (m.Hook != KindPreTool && m.Hook != KindAfterTurn) ||
			len(m.Tools) == 0 || len(m.Tools) > maxTools || m.Timeout < 0 || m.Timeout > maxTimeout {
			t.Fatalf("accepted an invalid manifest %+v from %q", m, data)
		}
		// What was accepted survives a round trip through the trust file.
		encoded, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseManifest(encoded)
		if err != nil || !reflect.DeepEqual(back, m) {
			t.Fatalf("round trip of %+v gave %+v, %v", m, back, err)
		}
	})
}

func FuzzParseTrust(f *testing.F) {
	f.Add([]byte(`{"version":1,"hooks":{}}`))
	f.Add([]byte(`{"version":1,"hooks":{"/p":{"name":"g","digest":"` +
		"abababababababababababababababababababababababababababababababab" +
		`","approvedAt":"2026-09-09T10:00:00Z","manifest":{"name":"g","hook":"pre_tool","tools":["*"]}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		records, err := trust.OpenFolders("hooks.json", trustSpec()).Parse(data)
		if err != nil {
			return
		}
		for dir, r := range records {
			if !trust.IsDigest(r.Digest) || checkName(r.Name) != nil || !filepath.IsAbs(dir) {
				t.Fatalf("accepted record %q: %+v", dir, r)
			}
		}
	})
}

// FuzzDecodeClaudeReply: whatever a Claude Code hook prints, the reader
// either refuses it or accepts strict JSON, and a rewrite it accepts is a
// strict JSON object that never comes with a block.
func FuzzDecodeClaudeReply(f *testing.F) {
	for _, seed := range []string{
		`{}`, `{"continue":false,"stopReason":"x"}`, `{"decision":"block","reason":"r"}`, `{"decision":"approve"}`,
		`{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no"}}`,
		`{"hookSpecificOutput":{"updatedInput":{"command":"ls"},"additionalContext":"c"}}`,
		`{"hookSpecificOutput":{"hookEventName":"Stop"}}`, `{"systemMessage":1}`, `{"a":1}`, `[]`, `{"continue":true}{}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, out []byte) {
		r, err := decodeClaudeReply(out, "PreToolUse")
		if err != nil {
			return
		}
		if !json.Valid(out) || strictjson.Check(out) != nil {
			t.Fatalf("accepted %q, which is not strict JSON", out)
		}
		if r.input != nil && (r.block || r.input[0] != '{' || strictjson.Check(r.input) != nil) {
			t.Fatalf("accepted the rewrite %q (block %v)", r.input, r.block)
		}
		if r.block && r.reason == "" {
			t.Fatal("a block without a reason")
		}
	})
}

// FuzzDecodeEventReply: shiro's reply for the other events is empty or
// strict JSON; a block always carries its reason.
func FuzzDecodeEventReply(f *testing.F) {
	for _, seed := range []string{``, ` `, `{"blocked":"x"}`, `{"context":"c","message":"m"}`, `{"stop":""}`, `{"blocked":""}`, `{"x":1}`, `{"context":1}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, out []byte) {
		r, err := decodeEventReply(out)
		if err != nil {
			return
		}
		if len(bytes.TrimSpace(out)) > 0 && (!json.Valid(out) || strictjson.Check(out) != nil) {
			t.Fatalf("accepted %q, which is not strict JSON", out)
		}
		if r.block && strings.TrimSpace(r.reason) == "" {
			t.Fatal("a block without a reason")
		}
	})
}
