package app

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/tools"
)

// A hook's rewrite must fit the tool's own schema.
func TestSchemaValidatorChecksRewrites(t *testing.T) {
	env, err := tools.NewEnv(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	reg, err := tools.NewRegistry(tools.FileTools(env)...)
	if err != nil {
		t.Fatal(err)
	}
	v := newSchemaValidator(reg)
	if err := v.Validate("read_file", json.RawMessage(`{"path":"a.go","limit":10}`)); err != nil {
		t.Fatalf("valid input refused: %v", err)
	}
	for _, bad := range []string{`{"limit":10}`, `{"path":3}`, `{"path":"a","extra":true}`, `not json`} {
		if err := v.Validate("read_file", json.RawMessage(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	if err := v.Validate("nope", json.RawMessage(`{}`)); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Fatalf("err = %v", err)
	}
}
