package mcp

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/shiro-neko/shiro/internal/secrets"
)

// varPattern matches ${NAME} and ${NAME:-default}. It is compiled where it
// is needed, rarely, rather than when every shiro starts.
func varPattern() *regexp.Regexp {
	return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)
}

// expander replaces ${VAR} references with values from getenv, keeping the
// first reference to a variable that is unset and has no default. With
// limited set (a project's definition), a variable commands could not read
// either expands as if unset, and a warning says so.
type expander struct {
	getenv      func(string) string
	def         Def
	limited     bool
	passthrough []string
	warnings    []string
	err         error
}

func (x *expander) expand(field, s string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	pattern := varPattern()
	return pattern.ReplaceAllStringFunc(s, func(ref string) string {
		m := pattern.FindStringSubmatch(ref)
		v := x.getenv(m[1])
		if v != "" && x.withheld(field, m[1], v) {
			if m[2] != "" {
				return m[3]
			}
			return ""
		}
		if v != "" {
			return v
		}
		if m[2] != "" {
			return m[3]
		}
		if x.err == nil {
			x.err = fmt.Errorf("server %s: %s refers to ${%s}, which is not set: set it, or write ${%s:-default}", x.def.Name, field, m[1], m[1])
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

// withheld reports whether a limited expansion may not read name (whose
// value is value), and warns, naming the file, server, field and variable.
// A project's server may read what a command may read with `env`: the
// scrub of package secrets, with the user's passthrough list. Otherwise a
// cloned repository's .mcp.json, approved for the server it runs, could
// carry GITHUB_TOKEN to a URL of its choosing.
func (x *expander) withheld(field, name, value string) bool {
	if !x.limited || slices.Contains(x.passthrough, name) {
		return false
	}
	kind := secrets.ClassifyEnv(name, value)
	if kind == secrets.EnvKept {
		return false
	}
	x.warnings = append(x.warnings, fmt.Sprintf(
		"%s: server %s: ${%s} in %s was left empty: the variable %s, and a project's server may only read what commands may (add %s to env.passthrough in ~/.shiro-neko/config.json to hand it on)",
		x.def.Source, x.def.Name, name, field, kind, name))
	return true
}

// Expand returns the launch with every ${VAR} in it replaced, as the
// server is started: in the command, arguments, environment, working
// directory, URL, headers and OAuth client settings. A project's
// definition (.mcp.json) reads only variables commands may read, and
// those named in passthrough; each other one it names expands to its
// default or to nothing, with a warning. The person's own definitions
// read anything.
func Expand(d Def, getenv func(string) string, passthrough []string) (Launch, []string, error) {
	x := &expander{getenv: getenv, def: d, limited: d.Origin == OriginProject, passthrough: passthrough}
	var out Launch
	switch l := d.Launch.(type) {
	case Stdio:
		out = Stdio{Command: x.expand("command", l.Command), Args: x.list("args", l.Args), Env: x.dict("env", l.Env), Cwd: x.expand("cwd", l.Cwd)}
	case HTTP:
		out = HTTP{x.endpoint(l.Endpoint)}
	case SSE:
		out = SSE{x.endpoint(l.Endpoint)}
	default:
		return nil, x.warnings, fmt.Errorf("server %s: unknown transport %T", d.Name, d.Launch)
	}
	return out, x.warnings, x.err
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
