package cli

import (
	"bufio"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/registry"
)

func newRegistryCommand(stdio IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "registry [QUERY]",
		Short: "Browse, install and remove registry skills and plugins; sign entries as a publisher",
		Long: "registry browses the index at config registry.url. With no arguments it lists the index; with words it\n" +
			"searches it. `add` fetches an entry, checks it (signature first), shows it and asks before installing it under\n" +
			"~/.shiro-neko/registry. Publisher keys are trusted only from your own config (registry.publishers).",
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return registryList(cmd, stdio, "")
			}
			return registryList(cmd, stdio, strings.Join(args, " "))
		},
	}
	cmd.AddCommand(
		&cobra.Command{
			Use:   "list",
			Short: "List every skill and plugin in the index",
			Args:  cobra.NoArgs,
			RunE:  func(cmd *cobra.Command, _ []string) error { return registryList(cmd, stdio, "") },
		},
		&cobra.Command{
			Use:   "search QUERY",
			Short: "List the entries whose name, description or author contains every word of QUERY",
			Args:  cobra.MinimumNArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				return registryList(cmd, stdio, strings.Join(args, " "))
			},
		},
		newRegistryInstalledCommand(stdio),
		newRegistryAddCommand(stdio),
		newRegistryRemoveCommand(stdio),
		newRegistryKeygenCommand(stdio),
		newRegistrySignCommand(stdio),
	)
	return cmd
}

// registryClient builds a client from the user's own config only: a
// project's config cannot choose the registry or add trust, so it is not
// read at all.
func registryClient(stdio IO) (*registry.Client, error) {
	paths, err := config.PathsFromEnv(stdio.Getenv)
	if err != nil {
		return nil, err
	}
	user, _, err := config.ReadFile(paths.ConfigFile())
	if err != nil {
		return nil, err
	}
	opts := registry.Options{IndexURL: config.DefaultRegistryURL, Dir: paths.Registry()}
	if r := user.Registry; r != nil {
		if r.URL != "" {
			opts.IndexURL = r.URL
		}
		opts.Trust.Publishers = r.Publishers
		opts.Trust.AllowUnsigned = r.AllowUnsigned != nil && *r.AllowUnsigned
	}
	return registry.New(opts), nil
}

// registryList prints the index, or the entries matching q.
func registryList(cmd *cobra.Command, stdio IO, q string) error {
	c, err := registryClient(stdio)
	if err != nil {
		return err
	}
	idx, err := c.List(cmd.Context())
	if err != nil {
		return err
	}
	for _, p := range idx.Problems {
		fmt.Fprintf(stdio.Err, "shiro: skipped %v\n", p)
	}
	entries := idx.Search(q)
	if len(entries) == 0 {
		if q == "" {
			fmt.Fprintf(stdio.Out, "the registry index at %s lists nothing\n", idx.Source)
		} else {
			fmt.Fprintf(stdio.Out, "nothing in the registry matches %q\n", q)
		}
		return nil
	}
	installed := map[registry.Ref]bool{}
	if list, err := c.Installed(); err == nil {
		for _, e := range list {
			installed[registry.Ref{Kind: e.Kind, Name: e.Name}] = true
		}
	}
	tw := tabwriter.NewWriter(stdio.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tNAME\tDESCRIPTION")
	for _, e := range entries {
		desc := e.Description
		if installed[e.Ref()] {
			desc += " (installed)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", e.Kind, e.Name, desc)
	}
	return tw.Flush()
}

func newRegistryInstalledCommand(stdio IO) *cobra.Command {
	return &cobra.Command{
		Use:   "installed",
		Short: "List what is installed from the registry",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := registryClient(stdio)
			if err != nil {
				return err
			}
			return c.WriteInstalled(stdio.Out, true)
		},
	}
}

func newRegistryAddCommand(stdio IO) *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "add NAME|skill:NAME|plugin:NAME",
		Short: "Fetch an entry, check it, show it and install it once you confirm",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := registry.ParseRef(args[0])
			if err != nil {
				return err
			}
			c, err := registryClient(stdio)
			if err != nil {
				return err
			}
			staged, err := c.Stage(cmd.Context(), ref)
			if err != nil {
				return err
			}
			fmt.Fprint(stdio.Out, staged.Preview())
			if !yes {
				fmt.Fprintf(stdio.Out, "\nInstall %s %s? [y/N] ", staged.Entry().Kind, staged.Entry().Name)
				if !confirmed(stdio) {
					fmt.Fprintln(stdio.Out, "Not installed.")
					return exitError{code: 1}
				}
			}
			change, err := c.Install(staged)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdio.Out, "Installed %s %s to %s. New sessions load it at start.\n", change.Kind, change.Name, change.Path)
			return nil
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "install without asking (the preview is still printed)")
	return cmd
}

// confirmed reads one answer line; only y or yes (any case) is a yes, and
// end of input is a no.
func confirmed(stdio IO) bool {
	line, _ := bufio.NewReader(stdio.In).ReadString('\n')
	answer := strings.ToLower(strings.TrimSpace(line))
	return answer == "y" || answer == "yes"
}

func newRegistryRemoveCommand(stdio IO) *cobra.Command {
	return &cobra.Command{
		Use:   "remove NAME|skill:NAME|plugin:NAME",
		Short: "Delete an installed entry (a bare name: the skill if there is one, else the plugin)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := registry.ParseRef(args[0])
			if err != nil {
				return err
			}
			c, err := registryClient(stdio)
			if err != nil {
				return err
			}
			change, err := c.Remove(ref)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdio.Out, "Removed %s %s (%s).\n", change.Kind, change.Name, change.Path)
			return nil
		},
	}
}

func newRegistryKeygenCommand(stdio IO) *cobra.Command {
	var out, signer string
	cmd := &cobra.Command{
		Use:   "keygen [--out FILE] [--signer NAME]",
		Short: "For publishers: make an ed25519 signing key and print the config snippet users add",
		Long: "keygen writes a new private key (PEM PKCS #8, mode 0600; never overwriting a file) and prints the\n" +
			"public key in the form config takes, its fingerprint and the snippet your users add to their config.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := registry.CheckSignerName(signer); err != nil {
				return err
			}
			if out == "" {
				out = "shiro-registry-" + signer + ".pem"
			}
			path, err := resolvePath(stdio, out)
			if err != nil {
				return err
			}
			pub, priv, err := ed25519.GenerateKey(rand.Reader)
			if err != nil {
				return fmt.Errorf("generating a key: %w", err)
			}
			if err := writeNewPrivateKey(path, priv); err != nil {
				return err
			}
			printPublisherKey(stdio, path, signer, pub)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "private key file to create (default shiro-registry-SIGNER.pem)")
	cmd.Flags().StringVar(&signer, "signer", "publisher", "your publisher name, as users will write it in registry.publishers")
	return cmd
}

// writeNewPrivateKey creates path with mode 0600, refusing to replace a
// key that exists.
func writeNewPrivateKey(path string, priv ed25519.PrivateKey) error {
	data, err := registry.MarshalPrivateKey(priv)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s already exists; choose another --out (keygen never overwrites a key)", path)
	}
	if err != nil {
		return fmt.Errorf("creating %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

func printPublisherKey(stdio IO, path, signer string, pub ed25519.PublicKey) {
	snippet, _ := json.MarshalIndent(map[string]any{
		"registry": map[string]any{"publishers": map[string]string{signer: registry.EncodePublicKey(pub)}},
	}, "", "  ")
	fmt.Fprintf(stdio.Out, "Wrote the private key to %s (mode 0600). Keep it secret: whoever holds it signs as %s.\n\n", path, signer)
	fmt.Fprintf(stdio.Out, "Public key:  %s\nFingerprint: %s\n\n", registry.EncodePublicKey(pub), registry.Fingerprint(pub))
	fmt.Fprintf(stdio.Out, "Your users add this to their own ~/.shiro-neko/config.json (%s):\n%s\n\n", registry.PublisherConfigKey(signer), snippet)
	fmt.Fprintf(stdio.Out, "Sign with: shiro registry sign --key %s --signer %s MANIFEST.json|SKILL.md\n", path, signer)
}

func newRegistrySignCommand(stdio IO) *cobra.Command {
	var keyFile, signer string
	cmd := &cobra.Command{
		Use:   "sign --key FILE --signer NAME MANIFEST.json|SKILL.md",
		Short: "For publishers: sign a plugin manifest (prints it signed) or a skill (prints its index fields)",
		Long: "sign checks the file as shiro would, then signs it. For a plugin manifest (.json) it prints the signed\n" +
			"manifest to publish. For a skill (.md) the file stays as it is and it prints the \"signer\" and \"signature\"\n" +
			"fields to put in the skill's index entry.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := registry.CheckSignerName(signer); err != nil {
				return err
			}
			keyPath, err := resolvePath(stdio, keyFile)
			if err != nil {
				return err
			}
			keyData, err := os.ReadFile(keyPath)
			if err != nil {
				return fmt.Errorf("reading the key: %w", err)
			}
			priv, err := registry.ParsePrivateKey(keyData)
			if err != nil {
				return fmt.Errorf("%s: %w", keyPath, err)
			}
			path, err := resolvePath(stdio, args[0])
			if err != nil {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return signFile(stdio, path, data, signer, priv)
		},
	}
	cmd.Flags().StringVar(&keyFile, "key", "", "the private key file (from keygen, or openssl genpkey -algorithm ed25519)")
	cmd.Flags().StringVar(&signer, "signer", "", "your publisher name, as users write it in registry.publishers")
	_ = cmd.MarkFlagRequired("key")
	_ = cmd.MarkFlagRequired("signer")
	return cmd
}

func signFile(stdio IO, path string, data []byte, signer string, priv ed25519.PrivateKey) error {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		signed, err := registry.SignManifest(data, signer, priv)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		_, err = stdio.Out.Write(signed)
		return err
	case ".md":
		sig, err := registry.SignSkill(data, priv)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		fmt.Fprintf(stdio.Err, "Add these two fields to the skill's entry in the index; publish %s byte for byte as it is.\n", filepath.Base(path))
		// Both values are plain ASCII (a checked name, base64), so Go's
		// quoting is JSON's.
		fmt.Fprintf(stdio.Out, "\"signer\": %q,\n\"signature\": %q\n", signer, sig)
		return nil
	}
	return fmt.Errorf("%s: name a plugin manifest (.json) or a skill (.md)", path)
}

// resolvePath makes a command-line path absolute against the working
// directory the CLI was given.
func resolvePath(stdio IO, p string) (string, error) {
	if filepath.IsAbs(p) {
		return p, nil
	}
	wd, err := stdio.Getwd()
	if err != nil {
		return "", err
	}
	return filepath.Join(wd, p), nil
}
