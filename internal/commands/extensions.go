package commands

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/hooks"
	"github.com/shiro-neko/shiro/internal/problem"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/registry"
)

// runHooks lists hooks, reviews the ones waiting for approval, approves one
// (pinned to the digest the person was shown) or revokes one.
func runHooks(_ context.Context, h env, args string) (agent.CommandOutcome, error) {
	r := h.Hooks()
	if r == nil {
		return text("hooks are disabled (config hooks.enabled is false, or --no-plugins)"), nil
	}
	verb, rest, _ := strings.Cut(args, " ")
	fields := strings.Fields(rest)
	switch verb {
	case "", "list":
		return text(hooksTable(r.Status(), r.Unlisted())), nil
	case "review":
		return HookReview(r), nil
	case "approve":
		switch len(fields) {
		case 1:
			return reviewOne(r, fields[0])
		case 2:
			if err := r.ApproveDigest(fields[0], fields[1]); err != nil {
				return agent.CommandOutcome{}, err
			}
			return text("approved hook " + fields[0] + " at sha256 " + shortDigest(fields[1])), nil
		}
	case "revoke":
		if len(fields) == 1 {
			if err := r.Revoke(fields[0]); err != nil {
				return agent.CommandOutcome{}, err
			}
			return text("revoked hook " + fields[0] + ": it blocks the calls it covers until approved again"), nil
		}
	}
	return agent.CommandOutcome{}, errors.New("usage: /hooks [review | approve NAME [DIGEST] | revoke NAME]")
}

// HookReview describes every hook that needs a decision before it can run,
// with a choice per hook that approves exactly the digest shown. The app
// offers it unasked when a session starts with such hooks.
func HookReview(r *hooks.Runner) agent.CommandOutcome {
	var parts []string
	var choices []protocol.Choice
	for _, s := range r.Status() {
		if s.State != hooks.StatePending && s.State != hooks.StateChanged {
			continue
		}
		parts = append(parts, describeHook(s))
		choices = append(choices, protocol.Choice{
			Label:  "approve " + s.Name,
			Detail: "sha256 " + shortDigest(s.Digest),
			Line:   "/hooks approve " + s.Name + " " + s.Digest,
		})
	}
	if len(parts) == 0 {
		return text("no hook is waiting for approval")
	}
	out := strings.Join(parts, "\n\n") + "\n\nA hook that is not approved blocks the calls it covers."
	return agent.CommandOutcome{Output: out, Choices: choices}
}

func reviewOne(r *hooks.Runner, name string) (agent.CommandOutcome, error) {
	for _, s := range r.Status() {
		if s.Name != name {
			continue
		}
		if s.State == hooks.StateInvalid {
			return agent.CommandOutcome{}, fmt.Errorf("hook %s cannot be approved: %s", name, s.Err)
		}
		return agent.CommandOutcome{Output: describeHook(s), Choices: []protocol.Choice{{
			Label: "approve " + s.Name, Detail: "sha256 " + shortDigest(s.Digest), Line: "/hooks approve " + s.Name + " " + s.Digest,
		}}}, nil
	}
	return agent.CommandOutcome{}, fmt.Errorf("no hook is named %q: /hooks lists them", name)
}

// describeHook is what a person reviews before approving: where it is,
// what it runs for, its digest and its manifest.
func describeHook(s hooks.Status) string {
	title := fmt.Sprintf("hook %s is new: approve it to let it run", s.Name)
	if s.State == hooks.StateChanged {
		title = fmt.Sprintf("hook %s changed since you approved it", s.Name)
	}
	lines := []string{
		title,
		"path:   " + s.Dir,
		fmt.Sprintf("kind:   %s (%s hook)", s.Kind, s.Origin),
		"tools:  " + strings.Join(s.Tools, ", "),
		"sha256: " + s.Digest,
	}
	if s.State == hooks.StateChanged && s.Approved != nil {
		lines = append(lines, "was:    "+s.Approved.Digest)
	}
	manifest := strings.TrimRight(s.Manifest, "\n")
	if manifest == "" {
		manifest = "(no manifest.json)"
	}
	return strings.Join(lines, "\n") + "\nmanifest.json:\n" + manifest
}

// hooksTable lists the hooks and, after them, what in the hooks folders is
// not a hook (a stray file, a shadowed folder): a file someone meant as a
// hook must not be answered with "no hooks found".
func hooksTable(list []hooks.Status, unlisted []problem.Problem) string {
	if len(list) == 0 && len(unlisted) == 0 {
		return "no hooks found (.shiro/hooks in the project, hooks/ in ~/.shiro-neko)"
	}
	var b strings.Builder
	if len(list) == 0 {
		b.WriteString("no usable hook folder (.shiro/hooks in the project, hooks/ in ~/.shiro-neko)\n")
	} else {
		tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tKIND\tTOOLS\tDIGEST\tSTATE")
		for _, s := range list {
			state := string(s.State)
			if s.Err != "" {
				state += " (" + s.Err + ")"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.Name, s.Kind, strings.Join(s.Tools, ","), shortDigest(s.Digest), state)
		}
		_ = tw.Flush()
	}
	for _, p := range unlisted {
		b.WriteString("problem: " + p.At() + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func shortDigest(d string) string {
	if len(d) > 12 {
		return d[:12]
	}
	return d
}

// registryTimeout bounds one registry fetch.
const registryTimeout = 30 * time.Second

// runRegistry lists, searches, installs and removes registry skills and
// plugins. An install first shows the checked entry and offers a choice
// that names its digest; only that exact body is installed. Installs and
// removals take effect when the next turn starts.
func runRegistry(ctx context.Context, h env, args string) (agent.CommandOutcome, error) {
	c := h.Registry()
	verb, rest, _ := strings.Cut(strings.TrimSpace(args), " ")
	rest = strings.TrimSpace(rest)
	ctx, cancel := context.WithTimeout(ctx, registryTimeout)
	defer cancel()
	switch verb {
	case "", "list":
		return registrySearch(ctx, c, "")
	case "search":
		return registrySearch(ctx, c, rest)
	case "installed":
		return text(registryInstalled(c)), nil
	case "add", "install":
		return registryAdd(ctx, h, c, rest)
	case "remove", "uninstall":
		ref, err := registry.ParseRef(rest)
		if err != nil {
			return agent.CommandOutcome{}, err
		}
		change, err := c.Remove(ref)
		if err != nil {
			return agent.CommandOutcome{}, err
		}
		h.Reload()
		return text(fmt.Sprintf("removed %s %s (%s); this takes effect from your next message", change.Kind, change.Name, change.Path)), nil
	}
	// Any other bare word is a search.
	return registrySearch(ctx, c, strings.TrimSpace(args))
}

func registrySearch(ctx context.Context, c *registry.Client, q string) (agent.CommandOutcome, error) {
	idx, err := c.List(ctx)
	if err != nil {
		return agent.CommandOutcome{}, err
	}
	var b strings.Builder
	for _, p := range idx.Problems {
		fmt.Fprintf(&b, "skipped %v\n", p)
	}
	entries := idx.Search(q)
	if len(entries) == 0 {
		if q == "" {
			fmt.Fprintf(&b, "the registry index at %s lists nothing", idx.Source)
		} else {
			fmt.Fprintf(&b, "nothing in the registry matches %q", q)
		}
		return text(b.String()), nil
	}
	installed := map[registry.Ref]bool{}
	if list, err := c.Installed(); err == nil {
		for _, e := range list {
			installed[registry.Ref{Kind: e.Kind, Name: e.Name}] = true
		}
	}
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tNAME\tDESCRIPTION")
	for _, e := range entries {
		desc := e.Description
		if installed[e.Ref()] {
			desc += " (installed)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", e.Kind, e.Name, desc)
	}
	_ = tw.Flush()
	b.WriteString("/registry add NAME shows an entry and installs it once you agree")
	return text(b.String()), nil
}

func registryInstalled(c *registry.Client) string {
	var b strings.Builder
	if err := c.WriteInstalled(&b, false); err != nil {
		return err.Error()
	}
	return strings.TrimRight(b.String(), "\n")
}

// registryAdd stages an entry. Without a digest it shows what was checked
// and offers the install; with one it installs only if the entry is still
// that exact body.
func registryAdd(ctx context.Context, h env, c *registry.Client, args string) (agent.CommandOutcome, error) {
	fields := strings.Fields(args)
	if len(fields) == 0 || len(fields) > 2 {
		return agent.CommandOutcome{}, errors.New("usage: /registry add NAME (skill:NAME or plugin:NAME)")
	}
	ref, err := registry.ParseRef(fields[0])
	if err != nil {
		return agent.CommandOutcome{}, err
	}
	staged, err := c.Stage(ctx, ref)
	if err != nil {
		return agent.CommandOutcome{}, err
	}
	e := staged.Entry()
	if len(fields) == 1 {
		return agent.CommandOutcome{
			Output: staged.Preview(),
			Choices: []protocol.Choice{{
				Label: fmt.Sprintf("install %s %s", e.Kind, e.Name), Detail: "sha256 " + shortDigest(staged.Digest()),
				Line: fmt.Sprintf("/registry add %s %s", ref, staged.Digest()),
			}},
		}, nil
	}
	if staged.Digest() != fields[1] {
		return agent.CommandOutcome{}, fmt.Errorf("%s %s changed since it was shown (sha256 %s, now %s): review it again with /registry add %s",
			e.Kind, e.Name, shortDigest(fields[1]), shortDigest(staged.Digest()), ref)
	}
	change, err := c.Install(staged)
	if err != nil {
		return agent.CommandOutcome{}, err
	}
	h.Reload()
	return text(fmt.Sprintf("installed %s %s to %s; it takes effect from your next message", change.Kind, change.Name, change.Path)), nil
}
