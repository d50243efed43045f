package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/demo"
	"github.com/shiro-neko/shiro/internal/headless"
	"github.com/shiro-neko/shiro/internal/llm/replay"
)

func newDemoCommand(stdio IO) *cobra.Command {
	var keep bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run a real session on a scratch repository from a recorded model: no API key, no network",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			dir, err := os.MkdirTemp("", "shiro-demo-*")
			if err != nil {
				return err
			}
			if !keep {
				defer os.RemoveAll(dir)
			}
			work := filepath.Join(dir, "stats")
			if err := os.Mkdir(work, 0o755); err != nil {
				return err
			}
			if err := demo.MakeRepo(ctx, work); err != nil {
				return fmt.Errorf("demo: preparing the scratch repository: %w", err)
			}
			resp, err := demo.Cassette()
			if err != nil {
				return err
			}
			// The demo keeps its state in the scratch directory: your own
			// config, hooks and memory play no part in it.
			home := filepath.Join(dir, "home")
			getenv := func(k string) string {
				switch k {
				case "SHIRO_HOME":
					return home
				case "SHIRO_PROVIDER", "SHIRO_MODEL", "SHIRO_BASE_URL", "SHIRO_API_KEY":
					return ""
				}
				return stdio.Getenv(k)
			}
			loaded, err := app.Load(getenv, work, config.Flags{Provider: "replay"})
			if err != nil {
				return err
			}
			a, err := app.Open(ctx, app.Options{Loaded: loaded, Yolo: true, Provider: replay.New("demo", resp)})
			if err != nil {
				return err
			}
			defer a.Close()
			demo.Intro(stdio.Out, work)
			code := headless.Run(ctx, a.Session, headless.Prompt(demo.Prompt),
				headless.Options{Out: stdio.Out, Err: stdio.Out, Results: true})
			if keep {
				fmt.Fprintf(stdio.Out, "\nThe scratch repository is kept at %s\n", work)
			}
			fmt.Fprintf(stdio.Out, "\nThat was a recorded session. Run `shiro` in your own project (with an API key) to do the same for real.\n")
			if code != 0 {
				return exitError{code: code}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&keep, "keep", false, "keep the scratch repository afterwards")
	return cmd
}
