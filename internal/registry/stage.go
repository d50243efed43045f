package registry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"unicode"

	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/skills"
)

// Staged is an entry whose body has been fetched and has passed every
// check — signature first, then schema, then name — held in memory until
// the person confirms. Nothing is on disk yet. Its fields are read-only so
// that what Install writes, and where, is exactly what was checked.
type Staged struct {
	entry    Entry
	verdict  Verdict
	path     string
	replaces bool
	body     []byte
	manifest plugin.Manifest
}

// Entry is the index entry that was staged.
func (s *Staged) Entry() Entry { return s.entry }

// Verdict says who signed it, if anyone.
func (s *Staged) Verdict() Verdict { return s.verdict }

// Path is where Install will write.
func (s *Staged) Path() string { return s.path }

// Replaces reports whether a file is already installed at Path.
func (s *Staged) Replaces() bool { return s.replaces }

// Digest is the sha256 of the fetched body, hex-encoded: a person who
// agrees to install what a preview showed names this digest, and an entry
// that changed in between is refused rather than installed unseen.
func (s *Staged) Digest() string {
	sum := sha256.Sum256(s.body)
	return hex.EncodeToString(sum[:])
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
	// The name becomes a file name: check it even for an Entry built by
	// hand rather than parsed from an index.
	if err := checkName(e.Name); err != nil {
		return nil, fmt.Errorf("refusing %q: %w", e.Name, err)
	}
	if e.Kind != KindSkill && e.Kind != KindPlugin {
		return nil, fmt.Errorf("refusing %q: unknown kind %q", e.Name, e.Kind)
	}
	if len(body) > MaxEntryBytes {
		return nil, fmt.Errorf("refusing %s %q: the file is %d bytes, over the %d KiB limit", e.Kind, e.Name, len(body), MaxEntryBytes>>10)
	}
	s := &Staged{entry: e, path: c.pathFor(e.Kind, e.Name), body: body}
	if _, err := os.Lstat(s.path); err == nil {
		s.replaces = true
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
	e := s.entry
	v, err := VerifySkill(e, s.body, c.opts.Trust)
	if err != nil {
		return err
	}
	s.verdict = v
	if err := checkSkillFile(s.body); err != nil {
		return fmt.Errorf("refusing skill %q: %w", e.Name, err)
	}
	parsed, _ := skills.Parse(s.body) // checked just above
	if parsed.Name != e.Name {
		return fmt.Errorf("refusing skill %q: the file is named %q but the index lists it as %q; the two must match", e.Name, parsed.Name, e.Name)
	}
	return nil
}

func (c *Client) checkPlugin(s *Staged) error {
	e := s.entry
	// The signature is checked on the generic parse before any field is
	// decoded or used.
	v, err := VerifyManifest(e.Name, s.body, c.opts.Trust)
	if err != nil {
		return err
	}
	s.verdict = v
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
	if !v.Signed() && s.replaces {
		if old := c.installedSigner(s.path); old != "" {
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
	e := s.entry
	fmt.Fprintf(&b, "%s %s — %s\n", e.Kind, e.Name, printable(e.Description))
	fmt.Fprintf(&b, "from %s", printable(e.URL))
	if e.Author != "" {
		fmt.Fprintf(&b, " (author: %s)", printable(e.Author))
	}
	b.WriteString("\n")
	if s.verdict.Signed() {
		fmt.Fprintf(&b, "signed by %s, verified with your pinned key %s (%s)",
			s.verdict.Signer, s.verdict.Fingerprint, PublisherConfigKey(s.verdict.Signer))
		if s.verdict.Original {
			b.WriteString(", in the TypeScript original's form")
		}
		b.WriteString("\n")
	} else {
		b.WriteString("UNSIGNED: allowed only because registry.allowUnsigned is true in your config\n")
	}
	fmt.Fprintf(&b, "installs to %s", s.path)
	if s.replaces {
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
