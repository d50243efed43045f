package mcp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/gowebpki/jcs"

	"github.com/shiro-neko/shiro/internal/strictjson"
)

// Origin says where a server's definition came from. Only a project's
// servers need the person's approval: the others were written or chosen
// by the person (their config, a file they named, their editor).
type Origin string

const (
	OriginUser    Origin = "user"
	OriginFlag    Origin = "flag"
	OriginClient  Origin = "client"
	OriginProject Origin = "project"
)

// NeedsApproval reports whether servers of this origin start only once
// approved.
func (o Origin) NeedsApproval() bool { return o == OriginProject }

// Def is one server as configured.
type Def struct {
	Name   string
	Origin Origin
	// Source is the file that defines the server (or "the editor").
	Source string
	Launch Launch
	// StartTimeout, when positive, overrides the session's start timeout.
	StartTimeout time.Duration
	// Digest is the sha256 of the definition as written, canonicalised
	// (RFC 8785): what an approval is bound to. ${VAR} references are
	// part of it, their values are not.
	Digest string
	// Raw is the definition as written, for people to review.
	Raw json.RawMessage
}

// Launch is how a server is reached: Stdio, HTTP or SSE.
type Launch interface {
	// Transport names it as config files do: stdio, http or sse.
	Transport() string
}

// Stdio is a server started as a process speaking MCP on its stdin and
// stdout.
type Stdio struct {
	Command string
	Args    []string
	Env     map[string]string
	// Cwd is the working directory, relative to the workspace root when
	// not absolute; empty is the workspace root.
	Cwd string
}

// Endpoint is a remote server's address and what to send with every
// request.
type Endpoint struct {
	URL     string
	Headers map[string]string
	// OAuth, when set, configures the authorization-code flow for a
	// server that asks for it; without it, a server that answers 401 is
	// still authorised with dynamic client registration.
	OAuth *OAuth
}

// HTTP is a server reached over MCP's Streamable HTTP transport.
type HTTP struct{ Endpoint }

// SSE is a server reached over MCP's older HTTP+SSE transport.
type SSE struct{ Endpoint }

// OAuth is a remote server's OAuth client settings.
type OAuth struct {
	// ClientID and ClientSecret name a client registered with the
	// server's authorization server in advance; without them the client
	// registers itself dynamically.
	ClientID     string
	ClientSecret string
	// CallbackPort is the loopback port the browser is sent back to; zero
	// picks a free one (only for dynamic registration).
	CallbackPort int
	Scopes       []string
}

func (Stdio) Transport() string { return "stdio" }
func (HTTP) Transport() string  { return "http" }
func (SSE) Transport() string   { return "sse" }

// maxNameLen keeps mcp__<server>__<tool> within the 64 characters
// providers allow for a tool name, leaving the tool at least 25.
const maxNameLen = 32

// CheckName reports whether name can name a server: letters, digits, _
// and -, at most 32 characters, and no "__" (which separates the server
// from the tool in a tool's name).
func CheckName(name string) error {
	switch {
	case name == "":
		return errors.New("a server name is empty")
	case len(name) > maxNameLen:
		return fmt.Errorf("server name %q is longer than %d characters", name, maxNameLen)
	case strings.IndexFunc(name, func(r rune) bool { return !nameRune(r) }) >= 0:
		return fmt.Errorf("server name %q may hold only letters, digits, _ and -", name)
	case strings.Contains(name, "__"):
		return fmt.Errorf("server name %q may not contain \"__\", which separates server and tool in tool names", name)
	}
	return nil
}

func nameRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-'
}

// entryKeys are the members a server's definition may have. Others are
// reported as warnings: files written for other tools carry their own.
func entryKeys() []string {
	return []string{"type", "command", "args", "env", "cwd", "url", "headers", "oauth", "startTimeoutMs"}
}

// ParseServers reads an mcpServers object: server name → definition.
// source names the file for messages and field is where the object sits in
// it ("mcpServers"). Unknown members of a definition come back as
// warnings; anything that cannot be honoured is an error naming the file
// and the field.
func ParseServers(source, field string, origin Origin, raw json.RawMessage) ([]Def, []string, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil, nil
	}
	if err := strictjson.Check(raw); err != nil {
		return nil, nil, fmt.Errorf("%s: %s: %w", source, field, err)
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, nil, fmt.Errorf("%s: field %q should be an object of server name → definition, not %s", source, field, strictjson.Kind(raw))
	}
	names := make([]string, 0, len(entries))
	for name := range entries {
		names = append(names, name)
	}
	slices.Sort(names)
	var defs []Def
	var warnings []string
	for _, name := range names {
		where := field + "." + name
		if err := CheckName(name); err != nil {
			return nil, nil, fmt.Errorf("%s: %s: %w", source, where, err)
		}
		d, warns, err := parseEntry(source, where, entries[name])
		if err != nil {
			return nil, nil, err
		}
		d.Name, d.Origin, d.Source = name, origin, source
		defs = append(defs, d)
		warnings = append(warnings, warns...)
	}
	return defs, warnings, nil
}

// fieldError is a definition's member that cannot be honoured.
func fieldError(source, field, format string, args ...any) error {
	return fmt.Errorf("%s: field %q %s", source, field, fmt.Sprintf(format, args...))
}

func parseEntry(source, where string, raw json.RawMessage) (Def, []string, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil || members == nil {
		return Def{}, nil, fieldError(source, where, "should be an object with command (a local server) or url (a remote one), not %s", strictjson.Kind(raw))
	}
	var warnings []string
	for k := range members {
		if !slices.Contains(entryKeys(), k) {
			warnings = append(warnings, fmt.Sprintf("%s: %s: unknown key %q ignored", source, where, k))
		}
	}
	slices.Sort(warnings)
	p := entryParser{source: source, where: where, members: members}
	kind := p.str("type")
	if kind == "" {
		switch {
		case members["command"] != nil:
			kind = "stdio"
		case members["url"] != nil:
			kind = "http"
		}
	}
	d := Def{}
	switch kind {
	case "stdio":
		s := Stdio{Command: p.str("command"), Args: p.strs("args"), Env: p.strMap("env"), Cwd: p.str("cwd")}
		if p.err == nil && s.Command == "" {
			p.fail("command", "is missing: a stdio server needs the program to run")
		}
		p.refuse("url", "headers", "oauth")
		d.Launch = s
	case "http", "streamable-http", "streamableHttp", "sse":
		e := Endpoint{URL: p.str("url"), Headers: p.strMap("headers"), OAuth: p.oauth()}
		if p.err == nil {
			p.checkURL(e.URL)
		}
		p.refuse("command", "args", "env", "cwd")
		if kind == "sse" {
			d.Launch = SSE{e}
		} else {
			d.Launch = HTTP{e}
		}
	case "":
		if p.err == nil {
			return Def{}, nil, fieldError(source, where, "needs command (a local server) or url (a remote one)")
		}
	default:
		p.fail("type", "is %q; use stdio, http or sse", kind)
	}
	if ms := p.integer("startTimeoutMs"); ms != 0 {
		if ms < 100 || ms > 600_000 {
			p.fail("startTimeoutMs", "must be between 100 and 600000")
		}
		d.StartTimeout = time.Duration(ms) * time.Millisecond
	}
	if p.err != nil {
		return Def{}, nil, p.err
	}
	canon, err := jcs.Transform(raw)
	if err != nil {
		return Def{}, nil, fieldError(source, where, "cannot be canonicalised: %v", err)
	}
	sum := sha256.Sum256(canon)
	d.Digest = hex.EncodeToString(sum[:])
	d.Raw = canon
	return d, warnings, nil
}

// entryParser reads a definition's members, keeping the first error.
type entryParser struct {
	source, where string
	members       map[string]json.RawMessage
	err           error
}

func (p *entryParser) fail(key, format string, args ...any) {
	if p.err == nil {
		p.err = fieldError(p.source, p.where+"."+key, format, args...)
	}
}

func (p *entryParser) decode(key string, v any, want string) bool {
	raw, ok := p.members[key]
	if !ok || string(raw) == "null" {
		return false
	}
	if err := json.Unmarshal(raw, v); err != nil {
		p.fail(key, "should be %s, not %s", want, strictjson.Kind(raw))
		return false
	}
	return true
}

func (p *entryParser) str(key string) string {
	var s string
	p.decode(key, &s, "a string")
	return s
}

func (p *entryParser) strs(key string) []string {
	var s []string
	p.decode(key, &s, "a list of strings")
	return s
}

func (p *entryParser) strMap(key string) map[string]string {
	var m map[string]string
	p.decode(key, &m, "an object of strings")
	return m
}

func (p *entryParser) integer(key string) int {
	var n int
	p.decode(key, &n, "a whole number")
	return n
}

// refuse fails on members that belong to the other kind of server, which
// would otherwise be silently ignored.
func (p *entryParser) refuse(keys ...string) {
	for _, k := range keys {
		if _, ok := p.members[k]; ok {
			p.fail(k, "does not apply to this kind of server (stdio servers take command, args, env and cwd; remote ones url, headers and oauth)")
		}
	}
}

func (p *entryParser) checkURL(raw string) {
	if raw == "" {
		p.fail("url", "is missing: a remote server needs its address")
		return
	}
	if strings.Contains(raw, "${") {
		return // checked once expanded, when the server starts
	}
	if !isHTTPURL(raw) {
		p.fail("url", "is %q; it must be an http:// or https:// address", raw)
	}
}

// isHTTPURL reports whether raw is an http:// or https:// address with a
// host: checked as written, and again once its ${VAR}s are expanded.
func isHTTPURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

func (p *entryParser) oauth() *OAuth {
	var w struct {
		ClientID     string   `json:"clientId"`
		ClientSecret string   `json:"clientSecret"`
		CallbackPort int      `json:"callbackPort"`
		Scopes       []string `json:"scopes"`
	}
	raw, ok := p.members["oauth"]
	if !ok {
		return nil
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(raw, &members) != nil || members == nil {
		p.fail("oauth", "should be an object (clientId, clientSecret, callbackPort, scopes)")
		return nil
	}
	if k, bad := strictjson.UnknownKey(members, []string{"clientId", "clientSecret", "callbackPort", "scopes"}); bad {
		p.fail("oauth."+k, "is not an OAuth setting; use clientId, clientSecret, callbackPort or scopes")
		return nil
	}
	if !p.decode("oauth", &w, "an object (clientId, clientSecret, callbackPort, scopes)") {
		return nil
	}
	if w.CallbackPort < 0 || w.CallbackPort > 65535 {
		p.fail("oauth.callbackPort", "must be a port number between 1 and 65535")
	}
	if w.ClientSecret != "" && w.ClientID == "" {
		p.fail("oauth.clientSecret", "needs clientId as well")
	}
	return &OAuth{ClientID: w.ClientID, ClientSecret: w.ClientSecret, CallbackPort: w.CallbackPort, Scopes: w.Scopes}
}
