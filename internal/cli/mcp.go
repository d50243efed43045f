package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/mcp"
)

// newMCPCommand manages MCP servers: the user's (config.json), a project's
// (.mcp.json, which start only once approved) and those of --mcp-config
// files.
func newMCPCommand(stdio IO) *cobra.Command {
	var files []string
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "List, add, remove, approve and inspect MCP servers (config.json, .mcp.json)",
	}
	cmd.PersistentFlags().StringArrayVar(&files, "mcp-config", nil, "also read the servers of this file ({\"mcpServers\":{…}}); repeatable")
	cmd.AddCommand(mcpList(stdio, &files), mcpGet(stdio, &files), mcpAdd(stdio), mcpRemove(stdio), mcpApprove(stdio, &files))
	return cmd
}

// withMCP hands f a manager of the servers a session here would have.
func withMCP(stdio IO, files []string, f func(app.Loaded, *mcp.Manager) error) error {
	loaded, err := loadHere(stdio)
	if err != nil {
		return err
	}
	m, closeAll, warnings, err := app.InspectMCP(loaded, files)
	if err != nil {
		return err
	}
	defer closeAll()
	for _, w := range warnings {
		fmt.Fprintf(stdio.Err, "shiro: %s\n", w)
	}
	return f(loaded, m)
}

func mcpList(stdio IO, files *[]string) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "Start each server that may start, and show its state, tools, schema bytes and prompts",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withMCP(stdio, *files, func(_ app.Loaded, m *mcp.Manager) error {
				m.Turn(cmd.Context())
				r := m.Status()
				if asJSON {
					enc := json.NewEncoder(stdio.Out)
					enc.SetIndent("", "  ")
					return enc.Encode(r)
				}
				fmt.Fprintln(stdio.Out, r.Table())
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

func mcpGet(stdio IO, files *[]string) *cobra.Command {
	return &cobra.Command{
		Use:   "get NAME",
		Short: "Show one server: where it is defined, its definition and digest, approval, and its tools",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withMCP(stdio, *files, func(loaded app.Loaded, m *mcp.Manager) error {
				name := args[0]
				i := slices.IndexFunc(m.Defs(), func(d mcp.Def) bool { return d.Name == name })
				if i < 0 {
					return fmt.Errorf("no MCP server is called %q: `shiro mcp list` shows them", name)
				}
				def := m.Defs()[i]
				for _, p := range m.Review() {
					if p.Name == name {
						fmt.Fprintln(stdio.Out, p.Describe())
						fmt.Fprintf(stdio.Out, "\napprove it with: shiro mcp approve %s\n", name)
						return nil
					}
				}
				fmt.Fprintf(stdio.Out, "name:      %s\norigin:    %s (%s)\ntransport: %s\nsha256:    %s\ndefinition:\n%s\n",
					def.Name, def.Origin, def.Source, def.Launch.Transport(), def.Digest, indentJSON(def.Raw))
				m.Turn(cmd.Context())
				return printServerTools(stdio.Out, m, name)
			})
		},
	}
}

// printServerTools lists one server's state and tools with their bytes.
func printServerTools(out io.Writer, m *mcp.Manager, name string) error {
	for _, s := range m.Status().Servers {
		if s.Name != name {
			continue
		}
		fmt.Fprintf(out, "state:     %s\nlog:       %s\n", s.State, s.Log)
		if s.Error != "" {
			fmt.Fprintf(out, "error:     %s\n", s.Error)
		}
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\nTOOL\tBYTES\tDESCRIPTION")
	for _, t := range m.ServerTools(name) {
		desc, _, _ := strings.Cut(t.Description, "\n")
		fmt.Fprintf(tw, "%s\t%d\t%s\n", t.Name, t.Bytes, desc)
	}
	for _, p := range m.Prompts() {
		if p.Server == name {
			fmt.Fprintf(tw, "/%s %s\tprompt\t%s\n", p.Name, p.Usage(), p.Summary)
		}
	}
	return tw.Flush()
}

// indentJSON indents a definition as written: its keys keep their order
// and its text is not re-escaped (an address's & stays &).
func indentJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw)
	}
	return b.String()
}

func mcpAdd(stdio IO) *cobra.Command {
	var scope, url, transport string
	var env, headers []string
	cmd := &cobra.Command{
		Use:   "add NAME [--url URL | -- COMMAND ARGS…]",
		Short: "Add a server to your config (or, with --scope project, to this project's .mcp.json)",
		Example: "  shiro mcp add fs -- npx -y @modelcontextprotocol/server-filesystem .\n" +
			"  shiro mcp add docs --url https://example.com/mcp -H 'Authorization: Bearer ${DOCS_TOKEN}'",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, command := args[0], args[1:]
			if dash := cmd.ArgsLenAtDash(); dash >= 0 && dash != 1 {
				return errors.New("usage: shiro mcp add NAME -- COMMAND ARGS… (the command goes after --)")
			}
			def, err := mcpDefinition(command, url, transport, env, headers)
			if err != nil {
				return err
			}
			loaded, err := loadHere(stdio)
			if err != nil {
				return err
			}
			path, perm := loaded.Paths.ConfigFile(), fs.FileMode(0o600)
			switch scope {
			case "user":
			case "project":
				path, perm = config.ProjectMCPFile(loaded.Cwd), 0o644
			default:
				return fmt.Errorf("--scope is %q: use user or project", scope)
			}
			if err := mcp.AddToFile(path, name, def, perm); err != nil {
				return err
			}
			fmt.Fprintf(stdio.Out, "added MCP server %s to %s\n", name, path)
			if scope == "project" {
				// You wrote it yourself, just now: approved as written.
				ds, _, err := mcp.ReadFile(path, mcp.OriginProject)
				if err != nil {
					return err
				}
				if err := mcp.Approve(mcp.NewTrust(loaded.Paths.MCPTrust()), loaded.Cwd, ds, name, "", time.Now()); err != nil {
					return err
				}
				fmt.Fprintf(stdio.Out, "approved it for this project (others who clone it approve it themselves)\n")
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&scope, "scope", "user", "where to add it: user (your config.json) or project (.mcp.json here)")
	f.StringVar(&url, "url", "", "a remote server's address")
	f.StringVar(&transport, "transport", "http", "with --url: http (Streamable HTTP) or sse")
	f.StringArrayVarP(&env, "env", "e", nil, "KEY=VALUE for a local server's environment; ${VAR} is read when it starts")
	f.StringArrayVarP(&headers, "header", "H", nil, "'Name: value' sent with every request to a remote server")
	return cmd
}

// mcpDefinition writes the definition `shiro mcp add` was given, in the
// shape of .mcp.json.
func mcpDefinition(command []string, url, transport string, env, headers []string) (json.RawMessage, error) {
	type def struct {
		Type    string            `json:"type"`
		Command string            `json:"command,omitempty"`
		Args    []string          `json:"args,omitempty"`
		Env     map[string]string `json:"env,omitempty"`
		URL     string            `json:"url,omitempty"`
		Headers map[string]string `json:"headers,omitempty"`
	}
	var d def
	switch {
	case url != "" && len(command) > 0:
		return nil, errors.New("give either --url or a command after --, not both")
	case url != "":
		if transport != "http" && transport != "sse" {
			return nil, fmt.Errorf("--transport is %q: use http or sse", transport)
		}
		if len(env) > 0 {
			return nil, errors.New("--env is for local servers; a remote one takes --header")
		}
		d = def{Type: transport, URL: url, Headers: map[string]string{}}
		for _, h := range headers {
			k, v, ok := strings.Cut(h, ":")
			if !ok || strings.TrimSpace(k) == "" {
				return nil, fmt.Errorf("--header %q: write it as 'Name: value'", h)
			}
			d.Headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	case len(command) > 0:
		if len(headers) > 0 {
			return nil, errors.New("--header is for remote servers; a local one takes --env")
		}
		d = def{Type: "stdio", Command: command[0], Args: command[1:], Env: map[string]string{}}
		for _, kv := range env {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return nil, fmt.Errorf("--env %q: write it as KEY=VALUE", kv)
			}
			d.Env[k] = v
		}
	default:
		return nil, errors.New("give the server's command after -- (a local server) or --url (a remote one)")
	}
	return json.Marshal(d)
}

func mcpRemove(stdio IO) *cobra.Command {
	var scope string
	cmd := &cobra.Command{
		Use:   "remove NAME",
		Short: "Remove a server from your config (or, with --scope project, from .mcp.json)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			loaded, err := loadHere(stdio)
			if err != nil {
				return err
			}
			var paths []string
			switch scope {
			case "":
				paths = []string{loaded.Paths.ConfigFile(), config.ProjectMCPFile(loaded.Cwd)}
			case "user":
				paths = []string{loaded.Paths.ConfigFile()}
			case "project":
				paths = []string{config.ProjectMCPFile(loaded.Cwd)}
			default:
				return fmt.Errorf("--scope is %q: use user or project", scope)
			}
			for _, p := range paths {
				had, err := mcp.RemoveFromFile(p, args[0])
				if err != nil {
					return err
				}
				if had {
					fmt.Fprintf(stdio.Out, "removed MCP server %s from %s\n", args[0], p)
					return nil
				}
			}
			return fmt.Errorf("no MCP server %q in %s", args[0], strings.Join(paths, " or "))
		},
	}
	cmd.Flags().StringVar(&scope, "scope", "", "user or project; by default your config, then .mcp.json")
	return cmd
}

func mcpApprove(stdio IO, files *[]string) *cobra.Command {
	var digest string
	cmd := &cobra.Command{
		Use:   "approve NAME",
		Short: "Approve a project server's current definition (.mcp.json) so it may start",
		Long: "approve shows the definition it approves. The approval is bound to the definition's digest:\n" +
			"when the definition changes, the server does not start until it is approved again.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withMCP(stdio, *files, func(loaded app.Loaded, m *mcp.Manager) error {
				for _, p := range m.Review() {
					if p.Name == args[0] {
						fmt.Fprintln(stdio.Out, p.Describe())
					}
				}
				if err := m.Approve(args[0], digest); err != nil {
					return err
				}
				fmt.Fprintf(stdio.Out, "approved MCP server %s for %s\n", args[0], loaded.Cwd)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&digest, "digest", "", "approve only if the definition still has this sha256 (from `shiro mcp get`)")
	return cmd
}
