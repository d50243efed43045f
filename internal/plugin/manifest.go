package plugin

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shiro-neko/shiro/internal/strictjson"
	"github.com/shiro-neko/shiro/internal/tools/external"
)

// Manifest is a declarative plugin: a list of denials, never code. The same
// schema serves the registry's installed plugins and the manifests users
// drop into ~/.shiro-neko/plugins and .shiro/plugins.
type Manifest struct {
	Name        string     `json:"name"`
	Description string     `json:"description"`
	Appendix    string     `json:"appendix,omitempty"`
	Deny        []DenyRule `json:"deny"`
	// Tools are the tools the plugin adds, each in the schema of a tool
	// manifest (internal/tools/external); they are covered by the
	// manifest's signature like every other member.
	Tools []external.Manifest `json:"tools,omitempty"`
	// Signer and Signature are the registry's publisher signature; this
	// package only checks their shape, the registry verifies them.
	Signer    string `json:"signer,omitempty"`
	Signature string `json:"signature,omitempty"`
}

// DenyRule refuses calls of the listed tools whose paths match PathPattern
// or whose commands match CommandPattern. Patterns are case-insensitive Go
// regular expressions (RE2) searched anywhere in the subject; anchor them
// with ^ and $ to match a whole path or command.
type DenyRule struct {
	// Tools are tool names; "*" within a name matches any run of
	// characters, so "*" is every tool and "mcp__*" every MCP tool.
	Tools          []string `json:"tools"`
	PathPattern    string   `json:"pathPattern,omitempty"`
	CommandPattern string   `json:"commandPattern,omitempty"`
	Reason         string   `json:"reason"`
}

// The manifest limits, shared with the registry.
const (
	MaxManifestBytes  = 64 << 10
	maxNameLen        = 40
	maxDescriptionLen = 300
	maxAppendixLen    = 2000
	maxDenyRules      = 50
	maxPluginTools    = 20
	maxRuleTools      = 30
	maxToolNameLen    = 64
	maxPatternLen     = 200
	maxReasonLen      = 300
	maxSignerLen      = 80
	ed25519SigLen     = 64
)

var (
	manifestNamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
	toolGlobPattern     = regexp.MustCompile(`^[A-Za-z0-9_.*-]+$`)
)

func manifestKeys() []string {
	return []string{"name", "description", "appendix", "deny", "tools", "signer", "signature"}
}

func ruleKeys() []string { return []string{"tools", "pathPattern", "commandPattern", "reason"} }

// ManifestError is a manifest problem: the file, the field ("deny[1].reason";
// empty for the document as a whole) and what is wrong and how to fix it.
type ManifestError struct {
	File    string
	Field   string
	Problem string
}

func (e *ManifestError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("plugin manifest %s: %s", e.File, e.Problem)
	}
	return fmt.Sprintf("plugin manifest %s: %s: %s", e.File, e.Field, e.Problem)
}

// ParseManifest decodes and validates a plugin manifest strictly: one JSON
// object in UTF-8, exact field names, no unknown or duplicate keys, every
// limit checked and every pattern compiled. name identifies the manifest in
// errors (a file path, or "registry entry x"). The error is a
// *ManifestError.
func ParseManifest(name string, data []byte) (Manifest, error) {
	m, err := decodeManifest(data)
	if err != nil {
		return Manifest{}, asManifestError(name, err)
	}
	if err := m.validate(); err != nil {
		return Manifest{}, asManifestError(name, err)
	}
	return m, nil
}

func asManifestError(file string, err error) error {
	if p, ok := err.(*jsonProblem); ok {
		return &ManifestError{File: file, Field: p.field, Problem: p.msg}
	}
	return &ManifestError{File: file, Problem: err.Error()}
}

func fieldProblem(field, format string, args ...any) error {
	return &jsonProblem{field: field, msg: fmt.Sprintf(format, args...)}
}

func decodeManifest(data []byte) (Manifest, error) {
	if len(data) > MaxManifestBytes {
		return Manifest{}, fieldProblem("", "the file is larger than %d KiB, the limit for a manifest", MaxManifestBytes>>10)
	}
	if !utf8.Valid(data) {
		return Manifest{}, fieldProblem("", "the file is not valid UTF-8; save it as UTF-8")
	}
	if err := checkStrictJSON(data); err != nil {
		return Manifest{}, err
	}
	top, err := object(data, "", manifestKeys())
	if err != nil {
		return Manifest{}, err
	}
	var m Manifest
	for _, f := range []struct {
		key string
		dst *string
	}{{"name", &m.Name}, {"description", &m.Description}, {"appendix", &m.Appendix}, {"signer", &m.Signer}, {"signature", &m.Signature}} {
		if *f.dst, _, err = stringMember(top, "", f.key); err != nil {
			return Manifest{}, err
		}
	}
	toolItems, hasTools, err := arrayMember(top, "", "tools")
	if err != nil {
		return Manifest{}, err
	}
	if len(toolItems) > maxPluginTools {
		return Manifest{}, fieldProblem("tools", "has %d tools; at most %d are allowed", len(toolItems), maxPluginTools)
	}
	for i, raw := range toolItems {
		t, err := external.Parse(raw)
		if err != nil {
			return Manifest{}, fieldProblem(fmt.Sprintf("tools[%d]", i), "%v", err)
		}
		m.Tools = append(m.Tools, t)
	}
	items, present, err := arrayMember(top, "", "deny")
	if err != nil {
		return Manifest{}, err
	}
	if !present && hasTools && len(toolItems) > 0 {
		// A plugin that only adds tools needs no rule.
		return m, nil
	}
	if !present {
		return Manifest{}, fieldProblem("deny", `missing; add at least one rule, such as {"tools":["write_file"],"pathPattern":"\\.sql$","reason":"…"}`)
	}
	if len(items) > maxDenyRules {
		// Checked before decoding so a huge list is not decoded for nothing.
		return Manifest{}, fieldProblem("deny", "has %d rules; at most %d are allowed", len(items), maxDenyRules)
	}
	for i, raw := range items {
		r, err := decodeRule(raw, fmt.Sprintf("deny[%d]", i))
		if err != nil {
			return Manifest{}, err
		}
		m.Deny = append(m.Deny, r)
	}
	return m, nil
}

func decodeRule(raw json.RawMessage, field string) (DenyRule, error) {
	members, err := object(raw, field, ruleKeys())
	if err != nil {
		return DenyRule{}, err
	}
	var r DenyRule
	items, present, err := arrayMember(members, field, "tools")
	if err != nil {
		return DenyRule{}, err
	}
	if !present {
		return DenyRule{}, fieldProblem(field+".tools", `missing; name the tools the rule applies to, such as ["bash"] or ["*"]`)
	}
	for i, item := range items {
		var s string
		if kind := strictjson.Kind(item); kind != "a string" {
			return DenyRule{}, fieldProblem(fmt.Sprintf("%s.tools[%d]", field, i), "must be a tool name (a string), not %s", kind)
		}
		if err := json.Unmarshal(item, &s); err != nil {
			return DenyRule{}, fieldProblem(fmt.Sprintf("%s.tools[%d]", field, i), "not a valid string: %v", err)
		}
		r.Tools = append(r.Tools, s)
	}
	for _, f := range []struct {
		key string
		dst *string
	}{{"pathPattern", &r.PathPattern}, {"commandPattern", &r.CommandPattern}, {"reason", &r.Reason}} {
		if *f.dst, _, err = stringMember(members, field, f.key); err != nil {
			return DenyRule{}, err
		}
	}
	return r, nil
}

// validate checks every limit. It also runs on manifests built in code, so
// Plugin can refuse to run one that would not have parsed.
func (m Manifest) validate() error {
	switch n := utf8.RuneCountInString(m.Name); {
	case m.Name == "":
		return fieldProblem("name", "missing or empty; name the plugin like its file, such as \"no-sql-edits\"")
	case n > maxNameLen:
		return fieldProblem("name", "is %d characters; at most %d are allowed", n, maxNameLen)
	case !manifestNamePattern.MatchString(m.Name):
		return fieldProblem("name", "%q is not allowed; use lower-case letters, digits and dashes, starting with a letter or digit", clip(m.Name))
	case slices.Contains(BuiltinNames(), m.Name):
		return fieldProblem("name", "%q is the name of a builtin plugin; choose another name", m.Name)
	}
	if err := checkText("description", m.Description, maxDescriptionLen, false); err != nil {
		return err
	}
	if m.Appendix != "" {
		if err := checkText("appendix", m.Appendix, maxAppendixLen, true); err != nil {
			return err
		}
	}
	if len(m.Deny) == 0 && len(m.Tools) == 0 {
		return fieldProblem("deny", "is empty; add at least one rule")
	}
	if len(m.Deny) > maxDenyRules {
		return fieldProblem("deny", "has %d rules; at most %d are allowed", len(m.Deny), maxDenyRules)
	}
	for i, r := range m.Deny {
		if err := r.validate(fmt.Sprintf("deny[%d]", i)); err != nil {
			return err
		}
	}
	return validateSignature(m.Signer, m.Signature)
}

func (r DenyRule) validate(field string) error {
	switch n := len(r.Tools); {
	case n == 0:
		return fieldProblem(field+".tools", `is empty; name at least one tool, or ["*"] for every tool`)
	case n > maxRuleTools:
		return fieldProblem(field+".tools", "has %d names; at most %d are allowed (a name may use *, such as \"mcp__*\")", n, maxRuleTools)
	}
	for i, t := range r.Tools {
		if len(t) > maxToolNameLen || !toolGlobPattern.MatchString(t) {
			return fieldProblem(fmt.Sprintf("%s.tools[%d]", field, i),
				"%q is not a tool name; use letters, digits, _ . - and * as a wildcard, at most %d characters", clip(t), maxToolNameLen)
		}
	}
	if r.PathPattern == "" && r.CommandPattern == "" {
		return fieldProblem(field, "needs a pathPattern or a commandPattern (or both); without one the rule would match nothing")
	}
	for _, p := range []struct{ key, pattern string }{{"pathPattern", r.PathPattern}, {"commandPattern", r.CommandPattern}} {
		if p.pattern == "" {
			continue
		}
		if _, err := compilePattern(field+"."+p.key, p.pattern); err != nil {
			return err
		}
	}
	return checkText(field+".reason", r.Reason, maxReasonLen, false)
}

// compilePattern compiles a manifest pattern case-insensitively.
func compilePattern(field, pattern string) (*regexp.Regexp, error) {
	if n := utf8.RuneCountInString(pattern); n > maxPatternLen {
		return nil, fieldProblem(field, "is %d characters; at most %d are allowed", n, maxPatternLen)
	}
	// The pattern is compiled alone first so the error quotes it as written.
	if _, err := regexp.Compile(pattern); err != nil {
		return nil, fieldProblem(field, "does not compile as a Go regular expression (%v); note that look-arounds and back-references are not supported", err)
	}
	re, err := regexp.Compile("(?i)" + pattern)
	if err != nil {
		return nil, fieldProblem(field, "does not compile case-insensitively (%v)", err)
	}
	return re, nil
}

// checkText checks a human-readable field: present when required, within
// its length, and free of control characters, which could repaint the
// terminal when the text is shown. multiline allows newlines and tabs.
func checkText(field, s string, limit int, multiline bool) error {
	if strings.TrimSpace(s) == "" {
		return fieldProblem(field, "missing or empty; write 1–%d characters", limit)
	}
	if n := utf8.RuneCountInString(s); n > limit {
		return fieldProblem(field, "is %d characters; at most %d are allowed", n, limit)
	}
	for _, r := range s {
		if multiline && (r == '\n' || r == '\t') {
			continue
		}
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			what := "control characters"
			if !multiline {
				what = "line breaks or control characters"
			}
			return fieldProblem(field, "contains %s (%U); remove them", what, r)
		}
	}
	return nil
}

func validateSignature(signer, signature string) error {
	switch {
	case signer == "" && signature == "":
		return nil
	case signature == "":
		return fieldProblem("signature", "missing while signer is set; sign the manifest or remove signer")
	case signer == "":
		return fieldProblem("signer", "missing while signature is set; name the publisher whose key signed it")
	}
	if err := checkText("signer", signer, maxSignerLen, false); err != nil {
		return err
	}
	sig, err := base64.StdEncoding.DecodeString(signature)
	if err != nil || len(sig) != ed25519SigLen {
		return fieldProblem("signature", "must be a base64 ed25519 signature (%d bytes)", ed25519SigLen)
	}
	return nil
}

// clip shortens a value quoted in a message.
func clip(s string) string {
	const limit = 60
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	return string([]rune(s)[:limit]) + "…"
}
