package skills

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// Limits on a skill file. The name and description go into every request,
// so they are kept short; the body is loaded only when asked for.
const (
	// BodyCap is the most characters (runes) of a body that are loaded.
	BodyCap = 20000
	// MaxFileBytes is the largest skill file read at all.
	MaxFileBytes = 1 << 20
	// MaxFrontmatterBytes bounds the YAML handed to the decoder.
	MaxFrontmatterBytes = 64 << 10
	// MaxNameLen and MaxDescriptionLen bound the catalogue line of a skill.
	MaxNameLen        = 64
	MaxDescriptionLen = 1024
)

// validName is the shape of a skill name: the same rule as registry and hook
// names, so a name is always a safe file name and a plain word in the prompt.
var validName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// document is what a skill file says, before the loader compares the name
// with the file it came from.
type document struct {
	name        string
	description string
	body        string
	extra       map[string]any
	// bodyRunes is the length of the body in the file, before any cut.
	bodyRunes int
}

func (d document) cut() bool { return d.bodyRunes > BodyCap }

// parseDocument reads a skill file: a `---` line, YAML frontmatter, a closing
// `---` line, then the markdown body. Every error says what to change.
func parseDocument(data []byte) (document, error) {
	if len(data) > MaxFileBytes {
		return document{}, fmt.Errorf("file is over the %d-byte limit; shorten the skill", MaxFileBytes)
	}
	if !utf8.Valid(data) {
		return document{}, fmt.Errorf("file is not valid UTF-8 text; save it as UTF-8")
	}
	text := strings.TrimPrefix(string(data), "\uFEFF")
	text = strings.ReplaceAll(text, "\r\n", "\n")

	front, body, err := splitFrontmatter(text)
	if err != nil {
		return document{}, err
	}
	fields, err := decodeFrontmatter(front)
	if err != nil {
		return document{}, err
	}
	name, err := textField(fields, "name")
	if err != nil {
		return document{}, err
	}
	if len(name) > MaxNameLen || !validName.MatchString(name) {
		return document{}, fmt.Errorf("name %q is not a valid skill name; use lowercase letters, digits and '-', starting with a letter or digit, at most %d characters", name, MaxNameLen)
	}
	description, err := textField(fields, "description")
	if err != nil {
		return document{}, err
	}
	// The catalogue shows one line per skill, so a folded or multi-line
	// description is joined into one.
	description = strings.Join(strings.Fields(description), " ")
	if n := utf8.RuneCountInString(description); n > MaxDescriptionLen {
		return document{}, fmt.Errorf("description is %d characters, over the %d limit; say in one sentence when to use the skill", n, MaxDescriptionLen)
	}

	body = strings.TrimRight(strings.TrimLeft(body, "\n"), " \t\n")
	if strings.TrimSpace(body) == "" {
		return document{}, fmt.Errorf("has no instructions after the frontmatter; write the skill's steps below the closing '---' line")
	}
	delete(fields, "name")
	delete(fields, "description")
	if len(fields) == 0 {
		fields = nil
	}
	doc := document{name: name, description: description, extra: fields, bodyRunes: utf8.RuneCountInString(body)}
	doc.body = capBody(body, doc.bodyRunes)
	return doc, nil
}

// splitFrontmatter separates the YAML between the opening and closing `---`
// lines from the body after them.
func splitFrontmatter(text string) (front, body string, err error) {
	first, rest, _ := strings.Cut(text, "\n")
	if strings.TrimRight(first, " \t") != "---" {
		return "", "", fmt.Errorf("does not start with a '---' line; put `name:` and `description:` between two '---' lines at the top of the file")
	}
	offset := 0
	for offset <= len(rest) {
		line, _, found := strings.Cut(rest[offset:], "\n")
		if strings.TrimRight(line, " \t") == "---" {
			front = rest[:offset]
			body = rest[offset+len(line):]
			if found {
				body = body[1:]
			}
			return front, body, nil
		}
		if !found {
			break
		}
		offset += len(line) + 1
	}
	return "", "", fmt.Errorf("frontmatter is never closed; add a line with just '---' after the description")
}

// decodeFrontmatter decodes the YAML mapping. The text is prefixed with the
// opening `---` so that the line numbers in YAML errors match the file.
func decodeFrontmatter(front string) (map[string]any, error) {
	if len(front) > MaxFrontmatterBytes {
		return nil, fmt.Errorf("frontmatter is %d bytes, over the %d-byte limit; keep only name, description and a few short keys there", len(front), MaxFrontmatterBytes)
	}
	var fields map[string]any
	if err := yaml.Unmarshal([]byte("---\n"+front), &fields); err != nil {
		msg := oneLine(err.Error())
		hint := "fix it so that it is a mapping such as `name: my-skill`"
		if strings.Contains(msg, "mapping values are not allowed") {
			// The usual cause: an unquoted description with ": " inside.
			hint = `a value containing ": " must be put in double quotes`
		}
		return nil, fmt.Errorf("frontmatter is not valid YAML (%s); %s", msg, hint)
	}
	return fields, nil
}

// textField returns a required, non-empty string field, trimmed.
func textField(fields map[string]any, key string) (string, error) {
	v, ok := fields[key]
	if !ok || v == nil {
		return "", fmt.Errorf("frontmatter has no %q; add `%s: …` between the '---' lines", key, key)
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("frontmatter %q must be text, not %T; quote the value", key, v)
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return "", fmt.Errorf("frontmatter %q is empty; give it a value", key)
	}
	return s, nil
}

// capBody cuts a body longer than BodyCap runes and says so, so the model
// knows it is not seeing the whole skill.
func capBody(body string, runes int) string {
	if runes <= BodyCap {
		return body
	}
	end := 0
	for range BodyCap {
		_, size := utf8.DecodeRuneInString(body[end:])
		end += size
	}
	return body[:end] + fmt.Sprintf("\n\n[Skill cut here: its body is %d characters and only the first %d are loaded.]", runes, BodyCap)
}

// oneLine folds a multi-line error message (YAML lists one problem per line)
// into one line for a Problem.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.TrimPrefix(s, "yaml: ")), " ")
}
