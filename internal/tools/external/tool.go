package external

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tools/bash"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// Limits of a call, the reference's where it gives them.
const (
	httpTimeout  = 20 * time.Second
	shellTimeout = time.Duration(bash.DefaultTimeoutMS) * time.Millisecond
	// bodyKeep is how much of a response is read: more than a result can
	// carry, so the cut is made by the cap.
	bodyKeep = 4*tool.ResultCap + 8192
	// maxRedirects bounds an http tool's redirects.
	maxRedirects = 5
)

// Deps is what the tools need from the session.
type Deps struct {
	Env *workspace.Env
	// HTTP sends the http kind's requests; nil is a client that follows
	// https redirects only. Tests pass a client that trusts their server.
	HTTP *http.Client
}

type input struct {
	Arg string `json:"arg,omitempty" jsonschema:"replaces {arg} in the tool's definition"`
}

// Tool makes the tool a manifest describes. Its calls go through the gate
// as any tool's: a shell tool's subject is its command line (judged as
// bash's are, and run in the sandbox as bash's are), an http tool's its
// address, a read tool's its path.
func Tool(m Manifest, d Deps) tool.Tool {
	info := tool.Info{
		Name:        m.Name,
		Description: m.Description + " (external " + m.Kind + " tool)",
	}
	var plan func(*input) tool.Plan
	var run func(context.Context, tool.Runtime, *input) (string, error)
	switch m.Kind {
	case KindShell:
		info.Effect, info.Kind, info.Subject = tool.Runs, protocol.KindExecute, tool.CommandSubject
		plan = func(in *input) tool.Plan {
			c := m.commandLine(in.Arg)
			return tool.Plan{Subjects: []string{c}, Commands: []string{c}, Title: oneLine(c)}
		}
		run = func(ctx context.Context, rt tool.Runtime, in *input) (string, error) {
			out, ok, err := bash.RunLine(ctx, d.Env, m.commandLine(in.Arg), shellTimeout, rt.Emit)
			if err == nil && !ok {
				// The reference: a non-zero exit is an error.
				return "", tool.Failf("%s", out)
			}
			return out, err
		}
	case KindHTTP:
		info.Effect, info.Kind, info.Subject = tool.Fetches, protocol.KindFetch, tool.URLSubject
		plan = func(in *input) tool.Plan {
			u := m.address(in.Arg)
			return tool.Plan{Subjects: []string{u}, Title: oneLine(u)}
		}
		run = func(ctx context.Context, _ tool.Runtime, in *input) (string, error) {
			return get(ctx, d.client(), m.address(in.Arg))
		}
	default: // KindRead; Parse admits no other
		info.Effect, info.Kind, info.Subject = tool.Reads, protocol.KindRead, tool.PathSubject
		plan = func(in *input) tool.Plan {
			p := m.filePath(in.Arg)
			return tool.Plan{Subjects: []string{p}, Title: oneLine(p)}
		}
		run = func(_ context.Context, _ tool.Runtime, in *input) (string, error) {
			// Env.ReadFile is the jail: nothing outside the workspace
			// (or its read-only roots) is read, whatever the manifest says.
			data, err := d.Env.ReadFile(m.filePath(in.Arg))
			if err != nil {
				return "", tool.Failf("%s: %v", m.filePath(in.Arg), err)
			}
			return tool.Cap(strings.ToValidUTF8(string(data), "\uFFFD")), nil
		}
	}
	return tool.New(tool.Def[input]{
		Info: info,
		Plan: plan,
		Run: func(ctx context.Context, rt tool.Runtime, in *input) (tool.Result, error) {
			return tool.TextOf(run(ctx, rt, in))
		},
	})
}

// commandLine puts the argument into the command as one shell word, so
// the model's text is data to the command, never more of the command.
func (m Manifest) commandLine(arg string) string {
	return strings.ReplaceAll(m.Command, "{arg}", shellQuote(arg))
}

// address puts the argument into the URL escaped, so it stays inside the
// part of the address it stands in.
func (m Manifest) address(arg string) string {
	return strings.ReplaceAll(m.URL, "{arg}", url.QueryEscape(arg))
}

func (m Manifest) filePath(arg string) string {
	return strings.ReplaceAll(m.Path, "{arg}", arg)
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// oneLine makes a Plan title of text: one line, at most 80 characters.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		return string(r[:79]) + "…"
	}
	return s
}

func (d Deps) client() *http.Client {
	if d.HTTP != nil {
		return d.HTTP
	}
	return &http.Client{Timeout: httpTimeout, CheckRedirect: httpsOnly}
}

// httpsOnly follows redirects that stay on https, as many as maxRedirects.
func httpsOnly(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	if req.URL.Scheme != "https" {
		return fmt.Errorf("refused a redirect to %s: external http tools use https only", req.URL.Redacted())
	}
	return nil
}

// get fetches u and returns its body as text, capped.
func get(ctx context.Context, c *http.Client, u string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, httpTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", tool.Failf("bad address %s: %v", u, err)
	}
	resp, err := c.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return "", tool.Failf("GET %s timed out after %s", u, httpTimeout)
		}
		return "", tool.Failf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, bodyKeep))
	if err != nil {
		return "", tool.Failf("GET %s: reading the body: %v", u, err)
	}
	text := tool.Cap(strings.ToValidUTF8(string(body), "\uFFFD"))
	if resp.StatusCode >= 400 {
		return "", tool.Failf("GET %s: %s\n%s", u, resp.Status, text)
	}
	return text, nil
}
