package skills

import (
	"context"
	"fmt"
	"strings"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// ToolName is the name the model calls the skill tool by.
const ToolName = "skill"

type skillInput struct {
	Name string `json:"name" jsonschema:"The skill's name, exactly as the skill catalogue lists it."`
}

// Tool returns the `skill` tool. It asks live for the catalogue on every
// call rather than holding one, so a skill installed or removed through the
// registry is seen from the next call on without rebuilding the tools.
// Loading a skill only reads; its permission subject is the name asked
// for, so a rule can match one skill.
func Tool(live func() *Catalogue) tool.Tool {
	return tool.New(tool.Def[skillInput]{
		Info: tool.Info{
			Name:        ToolName,
			Description: "Load a skill's instructions by name. The system prompt lists the skills with a line on when each applies; load a matching one before you start the work and follow it as if the user had written it.",
			Guidance:    "skill: load the instructions of a listed skill before starting work its description matches.",
			Set:         tool.SetNone,
			Effect:      tool.Reads,
			Kind:        protocol.KindRead,
			Subject:     tool.TextSubject,
		},
		Plan: func(in *skillInput) tool.Plan {
			name := normalName(in.Name)
			if name == "" {
				return tool.Plan{}
			}
			return tool.Plan{Subjects: []string{name}, Title: title(name)}
		},
		Run: func(_ context.Context, _ tool.Runtime, in *skillInput) (tool.Result, error) {
			return tool.TextOf(load(live(), in.Name))
		},
	})
}

// normalName is the name a call asks for: names are lowercase by rule, so
// `Plan` or ` plan ` can only mean plan.
func normalName(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

// title is a name asked for as one short line for people.
func title(name string) string {
	name = strings.Join(strings.Fields(name), " ")
	if r := []rune(name); len(r) > MaxNameLen {
		return string(r[:MaxNameLen]) + "…"
	}
	return name
}

// load returns the instructions of the skill called name in cat.
func load(cat *Catalogue, name string) (string, error) {
	if cat.Len() == 0 {
		return "", tool.Failf("no skills are loaded in this session")
	}
	want := normalName(name)
	if want == "" || len(want) > MaxNameLen {
		return "", tool.Failf("name must be one of the listed skill names (at most %d characters); available: %s", MaxNameLen, strings.Join(cat.Names(), ", "))
	}
	s, ok := cat.Get(want)
	if !ok {
		return "", tool.Failf("unknown skill %q; closest: %s", name, strings.Join(closestNames(want, cat.Names(), 5), ", "))
	}
	if s.Dir != "" {
		return fmt.Sprintf("Skill %q (%s), in the folder %s. The files its instructions mention (scripts, references) are in that folder: read them with the read tools by their full path (they can be read, not changed). Follow these instructions for this task.\n\n%s",
			s.Name, s.Origin, s.Dir, s.Body), nil
	}
	return fmt.Sprintf("Skill %q (%s). Follow these instructions for this task.\n\n%s", s.Name, s.Origin, s.Body), nil
}
