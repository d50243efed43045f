package skills

import (
	"slices"
	"strings"
)

// PromptHeader opens the catalogue block of the system prompt.
const PromptHeader = "Skills available through the skill tool, each with when it applies. Load a matching one before you start working, and follow it as if the user had written it:"

// promptLine is a skill's line in the prompt. The header says the text is
// when the skill applies, so the "Use when" most descriptions open with
// is left out: 9 bytes on every line of every request.
func promptLine(s Skill) string {
	return "- " + s.Name + ": " + strings.TrimPrefix(s.Description, "Use when ")
}

// Catalogue is the set of loaded skills. It is never changed after Load, so
// it can be shared between goroutines; a reload builds a new one.
type Catalogue struct {
	sorted []Skill // by name
	byName map[string]int
	prompt string
}

func newCatalogue(byName map[string]Skill) *Catalogue {
	c := &Catalogue{byName: make(map[string]int, len(byName))}
	for _, s := range byName {
		c.sorted = append(c.sorted, s)
	}
	slices.SortFunc(c.sorted, func(a, b Skill) int { return strings.Compare(a.Name, b.Name) })
	for i, s := range c.sorted {
		c.byName[s.Name] = i
	}
	c.prompt = renderPrompt(c.sorted)
	return c
}

// Len returns how many skills are loaded; the skill tool is offered only
// when it is at least one. A nil catalogue is empty.
func (c *Catalogue) Len() int {
	if c == nil {
		return 0
	}
	return len(c.sorted)
}

// Get returns the skill called name.
func (c *Catalogue) Get(name string) (Skill, bool) {
	if c == nil {
		return Skill{}, false
	}
	i, ok := c.byName[name]
	if !ok {
		return Skill{}, false
	}
	return c.sorted[i].clone(), true
}

// List returns every skill, sorted by name.
func (c *Catalogue) List() []Skill {
	if c == nil {
		return nil
	}
	out := make([]Skill, len(c.sorted))
	for i, s := range c.sorted {
		out[i] = s.clone()
	}
	return out
}

// Folders returns the folders of the skills in the folder layout, sorted:
// the places a skill's own files may be read from.
func (c *Catalogue) Folders() []string {
	if c == nil {
		return nil
	}
	var out []string
	for _, s := range c.sorted {
		if s.Dir != "" {
			out = append(out, s.Dir)
		}
	}
	slices.Sort(out)
	return out
}

// Names returns every skill name, sorted.
func (c *Catalogue) Names() []string {
	if c == nil {
		return nil
	}
	names := make([]string, len(c.sorted))
	for i, s := range c.sorted {
		names[i] = s.Name
	}
	return names
}

// PromptSection is the catalogue block of the system prompt: PromptHeader
// then one "- name: description" line per skill, sorted by name, without a
// trailing newline; "" when no skill is loaded. Only names and descriptions
// go here — bodies are fetched with the skill tool — and the bytes depend on
// nothing but the catalogue, since the block sits in the cached prefix.
func (c *Catalogue) PromptSection() string {
	if c == nil {
		return ""
	}
	return c.prompt
}

func renderPrompt(sorted []Skill) string {
	if len(sorted) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(PromptHeader)
	for _, s := range sorted {
		b.WriteString("\n")
		b.WriteString(promptLine(s))
	}
	return b.String()
}

// clone copies the skill deeply enough that a caller cannot change the
// catalogue through Extra.
func (s Skill) clone() Skill {
	if s.Extra != nil {
		s.Extra = cloneValue(s.Extra).(map[string]any)
	}
	return s
}

// cloneValue copies the shapes YAML decodes into: maps, lists and scalars.
func cloneValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = cloneValue(x)
		}
		return m
	case map[any]any: // YAML mappings with keys that are not all text
		m := make(map[any]any, len(v))
		for k, x := range v {
			m[k] = cloneValue(x)
		}
		return m
	case []any:
		l := make([]any, len(v))
		for i, x := range v {
			l[i] = cloneValue(x)
		}
		return l
	default:
		return v
	}
}
