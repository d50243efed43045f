package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/shiro-neko/shiro/internal/llm"
)

// applyPatchTool is apply_patch. fault is nil except in tests, which use
// it to make a step of the commit fail.
type applyPatchTool struct {
	env   *Env
	fault faultHook
}

const applyPatchSchema = `{"type":"object","properties":{` +
	`"patch":{"type":"string","description":"The whole patch, from *** Begin Patch to *** End Patch"}},` +
	`"required":["patch"],"additionalProperties":false}`

func (applyPatchTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name: "apply_patch",
		Description: "Change files with a patch: `*** Begin Patch`, then sections `*** Add File: p` (its lines, each prefixed +), " +
			"`*** Delete File: p`, or `*** Update File: p` (optionally `*** Move to: q` next) with chunks: `@@` or `@@ <a line above the change, " +
			"e.g. its function>`, then lines prefixed ' ' (keep, about 3 around each change), '-' (remove), '+' (add); `*** End of File` " +
			"ends a chunk at the file's end. Close with `*** End Patch`. Chunks go top to bottom and must fit one place. All or nothing.",
		Schema: json.RawMessage(applyPatchSchema),
	}
}

func (applyPatchTool) Meta() Meta {
	return Meta{
		Set:      SetEditPlus,
		Mutating: true,
		Guidance: "apply_patch: change several places or files in one call (add, update, move, delete) with a Codex-style patch; all or nothing.",
		Subjects: patchField,
		Writes:   patchField,
	}
}

// patchField lists every path a call's patch names (see patchPaths). It
// never fails: input that does not decode has no paths.
func patchField(input json.RawMessage) []string {
	var in struct {
		Patch string `json:"patch"`
	}
	if json.Unmarshal(input, &in) != nil {
		return nil
	}
	return patchPaths(in.Patch)
}

func (t applyPatchTool) Run(_ context.Context, call Call) (string, error) {
	var in struct {
		Patch *string `json:"patch"`
	}
	env, err := Begin(call, t.env, &in)
	if err != nil {
		return "", err
	}
	if in.Patch == nil || strings.TrimSpace(*in.Patch) == "" {
		return "", Failf("patch is required: the text from %q to %q", markBegin, markEnd)
	}
	p, err := parsePatch(*in.Patch)
	if err != nil {
		return "", Failf("The patch does not parse (no file was changed): %s", err)
	}
	plan, err := planPatch(env, p)
	if err != nil {
		return "", Failf("%s\nNo file was changed.", err)
	}
	warnings, err := commitPlan(env, plan, t.fault)
	if err != nil {
		return "", err
	}
	return Cap(patchResult(plan.summary, warnings)), nil
}

// patchResult is "Applied N changes:" and one line per file operation.
func patchResult(summary, warnings []string) string {
	var b strings.Builder
	noun := "changes"
	if len(summary) == 1 {
		noun = "change"
	}
	fmt.Fprintf(&b, "Applied %d %s:", len(summary), noun)
	for _, s := range summary {
		b.WriteString("\n- " + s)
	}
	for _, w := range warnings {
		b.WriteString("\nWarning: " + w)
	}
	return b.String()
}
