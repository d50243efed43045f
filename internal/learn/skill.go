package learn

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/shiro-neko/shiro/internal/fsutil"
)

// Limits of a learned skill (the original's).
const (
	// MinSkillBody is the shortest body worth a skill.
	MinSkillBody = 80
	// SkillFileCap is the most characters (runes) an auto-skill file
	// grows to with its updates; an update past it is not added. It is
	// also the skill loader's body cap, so nothing learned is cut off.
	SkillFileCap = 20000
	// maxSlug bounds the file name.
	maxSlug = 48
)

// AutoPrefix starts every learned skill's name and file name, so that
// the person can tell them from their own.
const AutoPrefix = "auto-"

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// slug is name as lowercase words joined by hyphens, without the prefix.
func slug(name string) string {
	s := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(name), "-"), "-")
	s = strings.TrimPrefix(s, "auto-")
	if len(s) > maxSlug {
		s = strings.TrimRight(s[:maxSlug], "-")
	}
	return s
}

// keepSkills writes the acceptable proposals and returns a notice for
// each skill written or updated.
func (l *Learner) keepSkills(ctx context.Context, props []skillProposal) []string {
	if l.cfg.SkillsDir == "" {
		return nil
	}
	var notices []string
	for _, p := range props {
		s := slug(p.Name)
		desc, body := oneLine(p.Description), strings.TrimSpace(p.Body)
		switch {
		case s == "",
			!strings.HasPrefix(desc, "Use when"),
			utf8.RuneCountInString(body) < MinSkillBody,
			!l.clean(ctx, desc), !l.clean(ctx, body):
			continue
		}
		n, err := l.writeSkill(AutoPrefix+s, desc, body)
		if err != nil {
			notices = append(notices, fmt.Sprintf("auto-skill: %s not saved: %v", AutoPrefix+s, err))
			continue
		}
		if n != "" {
			notices = append(notices, n)
		}
	}
	return notices
}

// writeSkill creates the skill's file or, when it exists and body is new
// to it, appends body under a dated update heading. It returns the notice
// to show, "" when nothing changed.
func (l *Learner) writeSkill(name, desc, body string) (string, error) {
	path := filepath.Join(l.cfg.SkillsDir, name+".md")
	old, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(l.cfg.SkillsDir, 0o755); err != nil {
			return "", fmt.Errorf("making the skill folder: %w", err)
		}
		text := fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n\n%s\n", name, quoteYAML(desc), body)
		if utf8.RuneCountInString(text) > SkillFileCap {
			return "", fmt.Errorf("it is over the %d-character cap", SkillFileCap)
		}
		if err := fsutil.WriteFileAtomic(path, []byte(text), 0o644); err != nil {
			return "", err
		}
		return fmt.Sprintf("auto-skill: %s → %s", name, path), nil
	case err != nil:
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	if strings.Contains(oneLine(string(old)), oneLine(body)) {
		return "", nil // learned before
	}
	update := fmt.Sprintf("\n## Update — %s\n\n%s\n", l.cfg.Now().Format("2006-01-02"), body)
	if utf8.RuneCount(old)+utf8.RuneCountInString(update) > SkillFileCap {
		return fmt.Sprintf("auto-skill: %s is at its %d-character cap; the update was not added (edit %s to make room)", name, SkillFileCap, path), nil
	}
	text := strings.TrimRight(string(old), "\n") + "\n" + update
	if err := fsutil.WriteFileAtomic(path, []byte(text), 0o644); err != nil {
		return "", err
	}
	return fmt.Sprintf("auto-skill: %s → %s (updated)", name, path), nil
}

// quoteYAML makes a one-line description safe as a YAML scalar: quoted,
// since a colon or a leading dash would change what it parses to.
func quoteYAML(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
