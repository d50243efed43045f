package mcp

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// varPattern matches ${NAME} and ${NAME:-default}. It is compiled where it
// is needed, rarely, rather than when every shiro starts.
func varPattern() *regexp.Regexp {
	return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)
}

// expander replaces ${VAR} references with values from getenv, keeping the
// first reference to a variable that is unset and has no default.
type expander struct {
	getenv func(string) string
	server string
	err    error
}

func (x *expander) expand(field, s string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	pattern := varPattern()
	return pattern.ReplaceAllStringFunc(s, func(ref string) string {
		m := pattern.FindStringSubmatch(ref)
		if v := x.getenv(m[1]); v != "" {
			return v
		}
		if m[2] != "" {
			return m[3]
		}
		if x.err == nil {
			x.err = fmt.Errorf("server %s: %s refers to ${%s}, which is not set: set it, or write ${%s:-default}", x.server, field, m[1], m[1])
		}
		return ""
	})
}

func (x *expander) list(field string, in []string) []string {
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = x.expand(fmt.Sprintf("%s[%d]", field, i), s)
	}
	return out
}

func (x *expander) dict(field string, in map[string]string) map[string]string {
	out := make(map[string]string, len(in))
	for _, k := range slices.Sorted(maps.Keys(in)) {
		out[k] = x.expand(field+"."+k, in[k])
	}
	return out
}

// Expand returns the launch with every ${VAR} in it replaced, as the
// server is started: in the command, arguments, environment, working
// directory, URL, headers and OAuth client settings.
func Expand(d Def, getenv func(string) string) (Launch, error) {
	x := &expander{getenv: getenv, server: d.Name}
	var out Launch
	switch l := d.Launch.(type) {
	case Stdio:
		out = Stdio{Command: x.expand("command", l.Command), Args: x.list("args", l.Args), Env: x.dict("env", l.Env), Cwd: x.expand("cwd", l.Cwd)}
	case HTTP:
		out = HTTP{x.endpoint(l.Endpoint)}
	case SSE:
		out = SSE{x.endpoint(l.Endpoint)}
	default:
		return nil, fmt.Errorf("server %s: unknown transport %T", d.Name, d.Launch)
	}
	return out, x.err
}

func (x *expander) endpoint(e Endpoint) Endpoint {
	out := Endpoint{URL: x.expand("url", e.URL), Headers: x.dict("headers", e.Headers)}
	if o := e.OAuth; o != nil {
		out.OAuth = &OAuth{
			ClientID: x.expand("oauth.clientId", o.ClientID), ClientSecret: x.expand("oauth.clientSecret", o.ClientSecret),
			CallbackPort: o.CallbackPort, Scopes: o.Scopes,
		}
	}
	return out
}

// Variables lists the environment variables a definition refers to, sorted:
// the review shows them, since a project's server could otherwise carry a
// secret away unnoticed.
func Variables(d Def) []string {
	seen := map[string]bool{}
	for _, m := range varPattern().FindAllStringSubmatch(string(d.Raw), -1) {
		seen[m[1]] = true
	}
	return slices.Sorted(maps.Keys(seen))
}
