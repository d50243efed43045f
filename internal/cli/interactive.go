package cli

import (
	"context"
	"fmt"

	"github.com/shiro-neko/shiro/internal/app"
)

func runInteractive(ctx context.Context, stdio IO, o runOptions, loaded app.Loaded) error {
	return fmt.Errorf("the terminal UI is not built yet; use -p")
}
