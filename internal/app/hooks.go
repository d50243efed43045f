package app

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/xeipuuv/gojsonschema"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/hooks"
	"github.com/shiro-neko/shiro/internal/tools"
)

// hookGate adapts the hooks runner to the gate.
type hookGate struct {
	runner *hooks.Runner
	cwd    string
}

func (h hookGate) PreTool(ctx context.Context, tool, callID string, input json.RawMessage) agent.HookVerdict {
	r := h.runner.PreTool(ctx, tool, callID, h.cwd, input)
	return agent.HookVerdict{Blocked: r.Blocked, Hook: r.Hook, Reason: r.Reason, Input: r.Input, Rewritten: r.Rewritten}
}

// hookObserver runs after_turn hooks; each failure becomes a notice.
type hookObserver struct{ runner *hooks.Runner }

func (h hookObserver) AfterTurn(ctx context.Context, t agent.TurnSummary) []string {
	var notices []string
	for _, err := range h.runner.AfterTurn(ctx, hooks.TurnSummary{Cwd: t.Cwd, ToolsCalled: t.ToolsCalled, FilesWritten: t.FilesWritten, Usage: t.Usage}) {
		notices = append(notices, "after_turn hook: "+err.Error())
	}
	return notices
}

// schemaValidator checks a hook's rewritten input against the tool's own
// JSON schema, compiling each schema once. gojsonschema is used rather than
// santhosh-tekuri/jsonschema because the latter compiles its meta-schemas
// when the process starts (about 5 ms of every start-up, `--version`
// included); this one does its work when a schema is first used.
type schemaValidator struct {
	reg *tools.Registry
	mu  sync.Mutex
	got map[string]*gojsonschema.Schema
}

func newSchemaValidator(reg *tools.Registry) *schemaValidator {
	return &schemaValidator{reg: reg, got: map[string]*gojsonschema.Schema{}}
}

func (v *schemaValidator) Validate(tool string, input json.RawMessage) error {
	s, err := v.schema(tool)
	if err != nil {
		return err
	}
	res, err := s.Validate(gojsonschema.NewBytesLoader(input))
	if err != nil {
		return fmt.Errorf("rewritten input is not JSON: %w", err)
	}
	if !res.Valid() {
		msgs := make([]string, 0, len(res.Errors()))
		for _, e := range res.Errors() {
			msgs = append(msgs, e.String())
		}
		return fmt.Errorf("rewritten input does not fit the %s schema: %s", tool, strings.Join(msgs, "; "))
	}
	return nil
}

func (v *schemaValidator) schema(tool string) (*gojsonschema.Schema, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if s, ok := v.got[tool]; ok {
		return s, nil
	}
	t, ok := v.reg.Get(tool)
	if !ok {
		return nil, fmt.Errorf("unknown tool %q", tool)
	}
	s, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader(t.Spec().Schema))
	if err != nil {
		return nil, fmt.Errorf("tool %s has an invalid schema: %w", tool, err)
	}
	v.got[tool] = s
	return s, nil
}
