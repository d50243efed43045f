package registry

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gowebpki/jcs"

	"github.com/shiro-neko/shiro/internal/prose"
	"github.com/shiro-neko/shiro/internal/strictjson"
)

// Entry is one skill or plugin the index offers.
type Entry struct {
	Kind        Kind
	Name        string
	Description string
	// URL is where the body is fetched from (already checked against the
	// scheme rule).
	URL    string
	Author string
	// Signer and Signature sign a skill's file; a plugin is signed inside
	// its manifest instead. Has* record presence, since a present but empty
	// field is a broken signature, not a missing one.
	Signer, Signature       string
	HasSigner, HasSignature bool
}

// Ref is the entry's qualified name.
func (e Entry) Ref() Ref { return Ref{Kind: e.Kind, Name: e.Name} }

// EntryProblem is an entry the index lists but that cannot be installed.
// One bad entry does not spoil the rest of the index.
type EntryProblem struct {
	Kind Kind
	// Position is the entry's place in its array, from 0.
	Position int
	// Name is the entry's name when it had a usable one.
	Name string
	Err  error
}

func (p EntryProblem) Error() string {
	at := fmt.Sprintf("%ss[%d]", p.Kind, p.Position)
	if p.Name != "" {
		at += fmt.Sprintf(" (%s:%s)", p.Kind, p.Name)
	}
	return "index entry " + at + ": " + p.Err.Error()
}

// Index is a parsed registry index.
type Index struct {
	// Source is where the index came from, for messages.
	Source  string
	Skills  []Entry
	Plugins []Entry
	// Problems are the entries that were left out, in index order.
	Problems []EntryProblem
}

func indexKeys() []string { return []string{"skills", "plugins"} }

func entryKeys() []string {
	return []string{"name", "description", "url", "author", "signer", "signature"}
}

// ParseIndex decodes an index: `{"skills": [entry…], "plugins": [entry…]}`,
// both optional. The document must be strict JSON (no duplicate keys, field
// names matched exactly, nothing unknown); a document that is not, or that
// breaks a size limit, is refused whole. A single bad entry is set aside as
// a Problem. A repeated kind:name is ignored after its first appearance.
func ParseIndex(source string, data []byte) (*Index, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("the registry index at %s %s", source, fmt.Sprintf(format, args...))
	}
	if len(data) > MaxIndexBytes {
		return nil, fail("is %d bytes, over the %d KiB limit", len(data), MaxIndexBytes>>10)
	}
	top, err := strictObject(data)
	if err != nil {
		return nil, fail("%v", err)
	}
	if err := onlyKeys(top, indexKeys()); err != nil {
		return nil, fail("%v", err)
	}
	idx := &Index{Source: source}
	for _, kind := range []Kind{KindSkill, KindPlugin} {
		raw, ok := top[string(kind)+"s"]
		if !ok {
			continue
		}
		var items []json.RawMessage
		if strictjson.Kind(raw) != "an array" {
			return nil, fail("has %q set to %s; it must be an array of entries", string(kind)+"s", strictjson.Kind(raw))
		}
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, fail("%q: %v", string(kind)+"s", err)
		}
		if len(items) > MaxEntriesPerKind {
			return nil, fail("lists %d %ss; at most %d are allowed", len(items), kind, MaxEntriesPerKind)
		}
		idx.addEntries(kind, items)
	}
	return idx, nil
}

func (idx *Index) addEntries(kind Kind, items []json.RawMessage) {
	seen := make(map[string]bool)
	for i, raw := range items {
		e, err := decodeEntry(kind, raw)
		if e.Name != "" {
			if seen[e.Name] {
				continue
			}
			seen[e.Name] = true
		}
		if err != nil {
			idx.Problems = append(idx.Problems, EntryProblem{Kind: kind, Position: i, Name: e.Name, Err: err})
			continue
		}
		if kind == KindSkill {
			idx.Skills = append(idx.Skills, e)
		} else {
			idx.Plugins = append(idx.Plugins, e)
		}
	}
}

// decodeEntry decodes and checks one entry. The returned Entry has its Name
// set whenever the name itself was valid, even if another field was not,
// so that the problem can be reported against it.
func decodeEntry(kind Kind, raw json.RawMessage) (Entry, error) {
	e := Entry{Kind: kind}
	if strictjson.Kind(raw) != "an object" {
		return e, fmt.Errorf("must be an object, not %s", strictjson.Kind(raw))
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		return e, err
	}
	// The name is read first so that any later problem is reported
	// against it.
	if _, err := stringMember(members, "name", &e.Name); err != nil {
		return Entry{Kind: kind}, err
	}
	if err := onlyKeys(members, entryKeys()); err != nil {
		return keepValidName(e), err
	}
	fields := map[string]*string{"name": &e.Name, "description": &e.Description, "url": &e.URL,
		"author": &e.Author, "signer": &e.Signer, "signature": &e.Signature}
	for _, key := range entryKeys() {
		if _, err := stringMember(members, key, fields[key]); err != nil {
			return keepValidName(e), err
		}
	}
	_, e.HasSigner = members["signer"]
	_, e.HasSignature = members["signature"]
	if err := checkName(e.Name); err != nil {
		return Entry{Kind: kind}, fmt.Errorf("name %q: %w", clip(e.Name), err)
	}
	if err := checkLine("description", e.Description, MaxDescriptionLen, true); err != nil {
		return e, err
	}
	if e.URL == "" {
		return e, fmt.Errorf("url: missing; give the https address of the %s's file", kind)
	}
	if _, err := checkURL(e.URL); err != nil {
		return e, fmt.Errorf("url: %w", err)
	}
	if err := checkLine("author", e.Author, MaxAuthorLen, false); err != nil {
		return e, err
	}
	if kind == KindPlugin && (e.HasSigner || e.HasSignature) {
		return e, fmt.Errorf("a plugin is signed inside its manifest; remove signer and signature from the index entry")
	}
	if err := checkLine("signer", e.Signer, maxSignerLen, false); err != nil {
		return e, err
	}
	return e, nil
}

// keepValidName strips an entry down to its kind and, when it is valid,
// its name: enough to report a problem against.
func keepValidName(e Entry) Entry {
	if checkName(e.Name) != nil {
		return Entry{Kind: e.Kind}
	}
	return Entry{Kind: e.Kind, Name: e.Name}
}

// stringMember reads members[key] into dst when present; null and other
// types are refused rather than read as absent.
func stringMember(members map[string]json.RawMessage, key string, dst *string) (bool, error) {
	raw, ok := members[key]
	if !ok {
		return false, nil
	}
	if strictjson.Kind(raw) != "a string" {
		return true, fmt.Errorf("%s must be a string, not %s", key, strictjson.Kind(raw))
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return true, fmt.Errorf("%s: %w", key, err)
	}
	return true, nil
}

// checkLine checks a one-line text field shown on the terminal: within its
// length, present when required, and free of control characters, which
// could repaint the screen.
func checkLine(field, s string, limit int, required bool) error {
	if strings.TrimSpace(s) == "" {
		if required || s != "" {
			return fmt.Errorf("%s: missing or empty; write 1–%d characters", field, limit)
		}
		return nil
	}
	if n := utf8.RuneCountInString(s); n > limit {
		return fmt.Errorf("%s: %d characters; at most %d are allowed", field, n, limit)
	}
	for _, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return fmt.Errorf("%s: contains a line break or control character (%U); remove it", field, r)
		}
	}
	return nil
}

// strictObject parses data as exactly one JSON object in UTF-8 with no
// duplicate key at any depth, and returns its members. encoding/json alone
// would let the last duplicate win, which lets two readers of the same bytes
// disagree; the JCS parser refuses duplicates outright. It stands in for
// strictjson.Check here because signed documents must also canonicalise
// (RFC 8785), and it refuses whatever would not.
func strictObject(data []byte) (map[string]json.RawMessage, error) {
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("is not valid UTF-8")
	}
	if k := strictjson.Kind(data); k != "an object" {
		return nil, fmt.Errorf("must be a JSON object, not %s", k)
	}
	if _, err := jcs.Transform(data); err != nil {
		return nil, fmt.Errorf("is not valid JSON (%v)", err)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return nil, fmt.Errorf("is not valid JSON (%v)", err)
	}
	return members, nil
}

// onlyKeys refuses a member whose name is not in allowed, matched exactly.
func onlyKeys(members map[string]json.RawMessage, allowed []string) error {
	if k, ok := strictjson.UnknownKey(members, allowed); ok {
		return fmt.Errorf("has an unknown field %q; remove it (allowed: %s; names are case-sensitive)", clip(k), strings.Join(allowed, ", "))
	}
	return nil
}

// clip shortens a value quoted in a message.
func clip(s string) string { return prose.Cut(s, 60) }

// Search returns the entries whose name, description or author contains
// every word of q, ignoring case; skills first, each kind in index order.
// An empty q returns everything.
func (idx *Index) Search(q string) []Entry {
	words := strings.Fields(strings.ToLower(q))
	var out []Entry
	for _, e := range slices.Concat(idx.Skills, idx.Plugins) {
		text := strings.ToLower(e.Name + " " + e.Description + " " + e.Author)
		if !slices.ContainsFunc(words, func(w string) bool { return !strings.Contains(text, w) }) {
			out = append(out, e)
		}
	}
	return out
}

// Lookup finds the entry ref names. A bare name that is both a skill and a
// plugin is refused, asking for a qualified one; a name whose entry was set
// aside returns the reason it was.
func (idx *Index) Lookup(ref Ref) (Entry, error) {
	var found []Entry
	for _, e := range slices.Concat(idx.Skills, idx.Plugins) {
		if e.Name == ref.Name && (ref.Kind == "" || e.Kind == ref.Kind) {
			found = append(found, e)
		}
	}
	var problems []EntryProblem
	for _, p := range idx.Problems {
		if p.Name == ref.Name && (ref.Kind == "" || p.Kind == ref.Kind) {
			problems = append(problems, p)
		}
	}
	switch {
	case len(found)+len(problems) > 1:
		return Entry{}, fmt.Errorf("%q is both a skill and a plugin in the index; say skill:%s or plugin:%s", ref.Name, ref.Name, ref.Name)
	case len(found) == 1:
		return found[0], nil
	case len(problems) == 1:
		p := problems[0]
		return Entry{}, fmt.Errorf("refusing %s %q: its index entry (%ss[%d]) is invalid: %w", p.Kind, ref.Name, p.Kind, p.Position, p.Err)
	}
	what := "nothing"
	if ref.Kind != "" {
		what = "no " + string(ref.Kind)
	}
	return Entry{}, fmt.Errorf("%s named %q in the registry index at %s; try `shiro registry search %s`", what, ref.Name, idx.Source, ref.Name)
}
