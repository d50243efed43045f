package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/store"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// pickSession is the value -r takes when no id follows it: offer a
// picker. It cannot be typed as an id (ids are hex and dashes).
const pickSession = "?"

// sessionFlags adds -c and -r to the root command.
func sessionFlags(f *pflag.FlagSet, o *runOptions) {
	f.BoolVarP(&o.cont, "continue", "c", false, "continue the newest session of this directory")
	f.StringVarP(&o.resume, "resume", "r", "", "continue the session with this id (or the first characters of it); without an id, pick one")
	f.Lookup("resume").NoOptDefVal = pickSession
}

// normaliseResumeFlag gives -r/--resume its documented meaning: the next
// argument is the id unless it starts with "-"; a bare -r picks. pflag
// alone only takes an optional value written as -r=ID.
func normaliseResumeFlag(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		if (a == "-r" || a == "--resume") && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			out = append(out, "--resume="+args[i+1])
			i++
			continue
		}
		out = append(out, a)
	}
	return out
}

// open opens the app of a run, pointed at the session store and at the
// session -c or -r names, with the --record cassette attached. The
// returned func closes the app, then the cassette, then the store.
func (o runOptions) open(ctx context.Context, opts app.Options, interactive bool) (*app.App, func(), error) {
	switch {
	case o.cont && o.resume != "":
		return nil, nil, errors.New("-c continues the newest session and -r a named one: pass one of them")
	case o.resume == pickSession && !interactive:
		return nil, nil, errors.New("-r without an id opens a picker in the terminal UI; headless, name the session (`shiro sessions list` shows them) or use -c for the newest")
	}
	st := store.New(opts.Paths.SessionsDB(), store.Options{})
	opts.Store = st
	opts.Continue = o.cont
	if o.resume == pickSession {
		opts.PickSession = true
	} else {
		opts.Resume = o.resume
	}
	closeRecord := func() {}
	if o.record != "" {
		f, err := os.OpenFile(o.record, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			_ = st.Close()
			return nil, nil, fmt.Errorf("--record: %w", err)
		}
		opts.Record = f
		closeRecord = func() { _ = f.Close() }
	}
	a, err := app.Open(ctx, opts)
	if err != nil {
		closeRecord()
		_ = st.Close()
		return nil, nil, err
	}
	return a, func() { a.Close(); closeRecord(); _ = st.Close() }, nil
}

// resumeHint is what shiro prints on the way out of a session that was
// saved: how to take it up again. `shiro -c` is offered while it is the
// newest session of its directory.
func resumeHint(ctx context.Context, a *app.App) string {
	ctx = context.WithoutCancel(ctx)
	st := a.SessionStore()
	s, err := st.Get(ctx, a.Session.ID())
	if err != nil || s.Messages == 0 {
		return ""
	}
	short := store.Short(s.ID)
	if newest, err := st.Newest(ctx, s.Cwd); err == nil && newest.ID == s.ID {
		return fmt.Sprintf("Resume it with: shiro -c\n            or: shiro -r %s\n", short)
	}
	return fmt.Sprintf("Resume it with: shiro -r %s\n", short)
}

// newSessionsCommand is `shiro sessions`: the saved sessions, for people
// and scripts.
func newSessionsCommand(stdio IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List, show, export, search or remove saved sessions",
		Long: "Every step of every session is saved in $SHIRO_HOME/.shiro-neko/sessions.db as it completes.\n" +
			"Continue one with `shiro -c` (the newest of this directory) or `shiro -r ID`.",
	}
	var listJSON, all, showJSON bool
	var format string
	list := &cobra.Command{
		Use:   "list",
		Short: "This directory's sessions, newest first (--all: every directory's)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withStore(stdio, func(st *store.Store, here string) error {
				o := store.ListOptions{Cwd: here}
				if all {
					o.Cwd = ""
				}
				found, err := st.List(cmd.Context(), o)
				if err != nil {
					return err
				}
				if listJSON {
					return writeJSON(stdio.Out, nonNil(found))
				}
				return writeTable(stdio.Out, found, all)
			})
		},
	}
	list.Flags().BoolVar(&listJSON, "json", false, "print a JSON array of sessions")
	list.Flags().BoolVar(&all, "all", false, "list the sessions of every directory")

	show := &cobra.Command{
		Use:   "show ID",
		Short: "A session's details and an outline of its conversation",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(stdio, func(st *store.Store, _ string) error {
				found, err := st.Resolve(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				snap, err := st.Load(cmd.Context(), found.ID)
				if err != nil {
					return err
				}
				if showJSON {
					return writeJSON(stdio.Out, struct {
						store.Session
						Tasks []protocol.Task `json:"tasks"`
					}{snap.Session, nonNil(snap.Tasks)})
				}
				return writeShow(stdio.Out, snap)
			})
		},
	}
	show.Flags().BoolVar(&showJSON, "json", false, "print the session as a JSON object")

	export := &cobra.Command{
		Use:   "export ID",
		Short: "Write a session's whole transcript: md for people (a pull request), json for programs",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "md" && format != "json" {
				return fmt.Errorf("--format %q: use md or json", format)
			}
			return withStore(stdio, func(st *store.Store, _ string) error {
				found, err := st.Resolve(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				sess, entries, err := st.Transcript(cmd.Context(), found.ID)
				if err != nil {
					return err
				}
				if format == "json" {
					return store.ExportJSON(stdio.Out, sess, entries)
				}
				return store.ExportMarkdown(stdio.Out, sess, entries)
			})
		},
	}
	export.Flags().StringVar(&format, "format", "md", "md or json")

	rm := &cobra.Command{
		Use:   "rm ID",
		Short: "Remove a session and everything kept with it",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(stdio, func(st *store.Store, _ string) error {
				found, err := st.Resolve(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				if err := st.Delete(cmd.Context(), found.ID); err != nil {
					return err
				}
				fmt.Fprintf(stdio.Out, "removed %s %q\n", found.ID, found.Title)
				return nil
			})
		},
	}

	search := &cobra.Command{
		Use:   "search QUERY",
		Short: "Find sessions of every directory by words in their messages or title",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(stdio, func(st *store.Store, _ string) error {
				hits, err := st.Search(cmd.Context(), strings.Join(args, " "), store.SearchOptions{Limit: 20})
				if err != nil {
					return err
				}
				tw := tabwriter.NewWriter(stdio.Out, 0, 4, 2, ' ', 0)
				for _, h := range hits {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", store.Short(h.Session.ID), h.Session.Updated.Local().Format("2006-01-02 15:04"), h.Session.Cwd, h.Snippet)
				}
				return tw.Flush()
			})
		},
	}
	cmd.AddCommand(list, show, export, rm, search)
	return cmd
}

// withStore opens the session store of this user and names this
// directory as sessions record it.
func withStore(stdio IO, f func(st *store.Store, here string) error) error {
	paths, err := config.PathsFromEnv(stdio.Getenv)
	if err != nil {
		return err
	}
	cwd, err := stdio.Getwd()
	if err != nil {
		return fmt.Errorf("cannot read the working directory: %w", err)
	}
	env, err := workspace.New(cwd)
	if err != nil {
		return err
	}
	st := store.New(paths.SessionsDB(), store.Options{})
	defer st.Close()
	return f(st, env.Root)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// nonNil makes an empty list encode as [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func writeTable(w io.Writer, list []store.Session, dirs bool) error {
	if len(list) == 0 {
		fmt.Fprintln(w, "no saved sessions")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	head := "ID\tUPDATED\tMESSAGES\tTITLE"
	if dirs {
		head += "\tDIRECTORY"
	}
	fmt.Fprintln(tw, head)
	for _, s := range list {
		line := fmt.Sprintf("%s\t%s\t%d\t%s", store.Short(s.ID), s.Updated.Local().Format("2006-01-02 15:04"), s.Messages, s.Title)
		if dirs {
			line += "\t" + s.Cwd
		}
		fmt.Fprintln(tw, line)
	}
	return tw.Flush()
}

// writeShow prints a session's details, its task list and one line per
// message of the history it would resume with.
func writeShow(w io.Writer, snap store.Snapshot) error {
	s := snap.Session
	u := s.Usage
	fmt.Fprintf(w, "id:        %s\ntitle:     %s\ndirectory: %s\nmodel:     %s\n", s.ID, s.Title, s.Cwd, strings.TrimPrefix(s.Provider+" / "+s.Model, " / "))
	fmt.Fprintf(w, "started:   %s\nupdated:   %s\nmessages:  %d\n", s.Created.Local().Format("2006-01-02 15:04:05"), s.Updated.Local().Format("2006-01-02 15:04:05"), s.Messages)
	fmt.Fprintf(w, "tokens:    %d in, %d out, %d cache read, %d cache written\n", u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens)
	if s.ForkedFrom != "" {
		fmt.Fprintf(w, "forked from: %s\n", s.ForkedFrom)
	}
	if len(snap.Tasks) > 0 {
		fmt.Fprintln(w, "tasks:")
		for _, t := range snap.Tasks {
			fmt.Fprintf(w, "  [%s] %s\n", t.Status, t.Content)
		}
	}
	fmt.Fprintln(w)
	for _, m := range snap.History {
		fmt.Fprintln(w, outline(m))
	}
	return nil
}

// outline is one line for a message: who, and the start of what.
func outline(m llm.Message) string {
	cut := func(s string) string {
		s = strings.Join(strings.Fields(s), " ")
		if r := []rune(s); len(r) > 100 {
			return string(r[:100]) + "…"
		}
		return s
	}
	switch m.Role {
	case llm.RoleUser:
		return "you:   " + cut(m.PlainText())
	case llm.RoleTool:
		var outs []string
		for _, p := range m.Parts {
			if r, ok := p.(llm.ToolResult); ok {
				state := "ok"
				if r.IsError {
					state = "error"
				}
				outs = append(outs, r.Name+" "+state)
			}
		}
		return "       → " + strings.Join(outs, ", ")
	}
	line := "shiro: " + cut(m.PlainText())
	for _, c := range m.ToolCalls() {
		line += "\n       [" + c.Name + "] " + cut(string(c.Input))
	}
	return line
}
