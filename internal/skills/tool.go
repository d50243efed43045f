package skills

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/tools"
)

// ToolName is the name the model calls the skill tool by.
const ToolName = "skill"

// Tool returns the `skill` tool. It asks live for the catalogue on every
// call rather than holding one, so a skill installed or removed through the
// registry is seen from the next call on without rebuilding the tools.
func Tool(live func() *Catalogue) tools.Tool { return skillTool{live: live} }

type skillTool struct{ live func() *Catalogue }

type skillInput struct {
	Name string `json:"name"`
}

var skillSchema = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"The skill's name, exactly as the skill catalogue lists it."}},"required":["name"],"additionalProperties":false}`)

func (skillTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name:        ToolName,
		Description: "Load a skill's instructions by name. The system prompt lists the skills with a line on when each applies; load a matching one before you start the work and follow it as if the user had written it.",
		Schema:      skillSchema,
	}
}

func (skillTool) Meta() tools.Meta {
	return tools.Meta{
		Set:      tools.SetNone,
		Mutating: false,
		Guidance: "skill: load the instructions of a listed skill before starting work its description matches.",
		Subjects: skillSubjects,
	}
}

// skillSubjects is the name asked for, so a permission rule can match one
// skill; input that does not decode has no subject.
func skillSubjects(input json.RawMessage) []string {
	var in skillInput
	if json.Unmarshal(input, &in) != nil {
		return nil
	}
	if name := normalName(in.Name); name != "" {
		return []string{name}
	}
	return nil
}

// normalName is the name a call asks for: names are lowercase by rule, so
// `Plan` or ` plan ` can only mean plan.
func normalName(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

func (t skillTool) Run(_ context.Context, call tools.Call) (string, error) {
	var in skillInput
	if err := tools.Decode(call, &in); err != nil {
		return "", err
	}
	cat := t.live()
	if cat.Len() == 0 {
		return "", fmt.Errorf("no skills are loaded in this session")
	}
	name := normalName(in.Name)
	if name == "" || len(name) > MaxNameLen {
		return "", fmt.Errorf("name must be one of the listed skill names (at most %d characters); available: %s", MaxNameLen, strings.Join(cat.Names(), ", "))
	}
	s, ok := cat.Get(name)
	if !ok {
		return "", fmt.Errorf("unknown skill %q; closest: %s", in.Name, strings.Join(closestNames(name, cat.Names(), 5), ", "))
	}
	return fmt.Sprintf("Skill %q (%s). Follow these instructions for this task.\n\n%s", s.Name, s.Origin, s.Body), nil
}
