package registry

import (
	"context"
	"fmt"
	"os"
	"strings"
	"unicode"

	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/skills"
)

// Staged is an entry whose body has been fetched and has passed every
// check — signature first, then schema, then name — held in memory until
// the person confirms. Nothing is on disk yet.
type Staged struct {
	Entry   Entry
	Verdict Verdict
	// Path is where Install will write; Replaces says a file is there.
	Path     string
	Replaces bool
	body     []byte
	skill    skills.Skill
	manifest plugin.Manifest
}

// List fetches the index: exactly one GET.
func (c *Client) List(ctx context.Context) (*Index, error) {
	data, err := c.fetch(ctx, "the registry index", c.opts.IndexURL, MaxIndexBytes)
	if err != nil {
		return nil, err
	}
	return ParseIndex(c.opts.IndexURL, data)
}

// Search fetches the index and returns the entries matching q (see
// Index.Search).
func (c *Client) Search(ctx context.Context, q string) ([]Entry, error) {
	idx, err := c.List(ctx)
	if err != nil {
		return nil, err
	}
	return idx.Search(q), nil
}

// Stage fetches the index and then the entry ref names — exactly one GET
// each — and checks the entry. The result is ready for Preview and Install.
func (c *Client) Stage(ctx context.Context, ref Ref) (*Staged, error) {
	idx, err := c.List(ctx)
	if err != nil {
		return nil, err
	}
	e, err := idx.Lookup(ref)
	if err != nil {
		return nil, err
	}
	body, err := c.fetch(ctx, fmt.Sprintf("the %s %q", e.Kind, e.Name), e.URL, MaxEntryBytes)
	if err != nil {
		return nil, fmt.Errorf("refusing %s %q: %w", e.Kind, e.Name, err)
	}
	return c.Check(e, body)
}

// Check runs every check on a fetched body against its index entry. It is
// Stage without the network.
func (c *Client) Check(e Entry, body []byte) (*Staged, error) {
	if len(body) > MaxEntryBytes {
		return nil, fmt.Errorf("refusing %s %q: the file is %d bytes, over the %d KiB limit", e.Kind, e.Name, len(body), MaxEntryBytes>>10)
	}
	s := &Staged{Entry: e, Path: c.pathFor(e.Kind, e.Name), body: body}
	if _, err := os.Lstat(s.Path); err == nil {
		s.Replaces = true
	}
	var err error
	if e.Kind == KindSkill {
		err = c.checkSkill(s)
	} else {
		err = c.checkPlugin(s)
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (c *Client) checkSkill(s *Staged) error {
	e := s.Entry
	v, err := VerifySkill(e, s.body, c.opts.Trust)
	if err != nil {
		return err
	}
	s.Verdict = v
	if err := checkSkillFile(s.body); err != nil {
		return fmt.Errorf("refusing skill %q: %w", e.Name, err)
	}
	s.skill, _ = skills.Parse(s.body) // checked just above
	if s.skill.Name != e.Name {
		return fmt.Errorf("refusing skill %q: the file is named %q but the index lists it as %q; the two must match", e.Name, s.skill.Name, e.Name)
	}
	return nil
}

func (c *Client) checkPlugin(s *Staged) error {
	e := s.Entry
	// The signature is checked on the generic parse before any field is
	// decoded or used.
	v, err := VerifyManifest(e.Name, s.body, c.opts.Trust)
	if err != nil {
		return err
	}
	s.Verdict = v
	m, err := plugin.ParseManifest(fmt.Sprintf("%q from %s", e.Name, e.URL), s.body)
	if err != nil {
		return fmt.Errorf("refusing plugin %q: %w", e.Name, err)
	}
	if m.Name != e.Name {
		return fmt.Errorf("refusing plugin %q: the manifest is named %q but the index lists it as %q; the two must match", e.Name, m.Name, e.Name)
	}
	if len(m.Deny) == 0 {
		return fmt.Errorf("refusing plugin %q: it has no deny rule, so it would do nothing", e.Name)
	}
	if !v.Signed() && s.Replaces {
		if old := c.installedSigner(s.Path); old != "" {
			return fmt.Errorf("refusing plugin %q: it is unsigned and would replace the installed copy signed by %q; run `shiro registry remove plugin:%s` first if you really mean to", e.Name, old, e.Name)
		}
	}
	s.manifest = m
	return nil
}

// installedSigner is the signer of the plugin installed at path, or "".
func (c *Client) installedSigner(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	m, err := plugin.ParseManifest(path, data)
	if err != nil {
		return ""
	}
	return m.Signer
}

// checkPlainText refuses control characters other than tab and line
// breaks (a carriage return only before a newline), and bidirectional
// overrides: each could hide text in the preview or repaint the terminal.
func checkPlainText(data []byte) error {
	text := string(data)
	line := 1
	for i, r := range text {
		switch {
		case r == '\n':
			line++
		case r == '\t' || (r == '\r' && strings.HasPrefix(text[i+1:], "\n")):
		case unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029':
			return fmt.Errorf("contains the control character %U on line %d; a registry skill must be plain text", r, line)
		}
	}
	return nil
}

// Preview is what the person reads before confirming: for a skill, the
// whole file; for a plugin, its description, every rule and its appendix.
// Everything from outside has been checked for control characters, and is
// passed through printable as well.
func (s *Staged) Preview() string {
	var b strings.Builder
	e := s.Entry
	fmt.Fprintf(&b, "%s %s — %s\n", e.Kind, e.Name, printable(e.Description))
	fmt.Fprintf(&b, "from %s", printable(e.URL))
	if e.Author != "" {
		fmt.Fprintf(&b, " (author: %s)", printable(e.Author))
	}
	b.WriteString("\n")
	if s.Verdict.Signed() {
		fmt.Fprintf(&b, "signed by %s, verified with your pinned key %s (%s)\n",
			s.Verdict.Signer, s.Verdict.Fingerprint, PublisherConfigKey(s.Verdict.Signer))
	} else {
		b.WriteString("UNSIGNED: allowed only because registry.allowUnsigned is true in your config\n")
	}
	fmt.Fprintf(&b, "installs to %s", s.Path)
	if s.Replaces {
		b.WriteString(" (replacing the installed copy)")
	}
	b.WriteString("\n\n")
	if e.Kind == KindSkill {
		fmt.Fprintf(&b, "----- %s.md -----\n%s", e.Name, printable(string(s.body)))
		if !strings.HasSuffix(string(s.body), "\n") {
			b.WriteString("\n")
		}
		b.WriteString("----- end -----\n")
		return b.String()
	}
	m := s.manifest
	fmt.Fprintf(&b, "%s\n", printable(m.Description))
	for _, r := range m.Deny {
		tools := strings.Join(r.Tools, ", ")
		if r.PathPattern != "" {
			fmt.Fprintf(&b, "- denies %s: %s (paths) — %s\n", tools, printable(r.PathPattern), printable(r.Reason))
		}
		if r.CommandPattern != "" {
			fmt.Fprintf(&b, "- denies %s: %s (commands) — %s\n", tools, printable(r.CommandPattern), printable(r.Reason))
		}
	}
	if m.Appendix != "" {
		fmt.Fprintf(&b, "adds to the system prompt:\n  %s\n", strings.ReplaceAll(printable(m.Appendix), "\n", "\n  "))
	}
	return b.String()
}

// printable makes text safe to show on a terminal: line ends become \n and
// any other control character or bidirectional override becomes U+FFFD.
func printable(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) {
			return unicode.ReplacementChar
		}
		return r
	}, s)
}
