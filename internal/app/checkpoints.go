package app

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"sync"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/checkpoint"
)

// checkpointer takes the workspace's checkpoints at a turn's edges, for
// /undo and /changes: its BeforeChange and Ended hooks. The private
// repository is opened when first needed (the end of the first turn), not
// at start; snapshots run git only in turns that change something.
type checkpointer struct {
	agent.NoHooks
	a    *App
	once sync.Once
	k    *checkpoint.Keeper
	err  error
	told bool // the person heard why checkpoints are off
	// off is set when the workspace proved too big to snapshot: every
	// later turn would walk it again to fail the same way.
	off bool
	mu  sync.Mutex
}

// keeper opens the checkpoint store on first use.
func (c *checkpointer) keeper(ctx context.Context) (*checkpoint.Keeper, error) {
	c.once.Do(func() {
		if _, err := exec.LookPath("git"); err != nil {
			c.err = errors.New("checkpoints are off: git was not found on PATH, and /undo needs it")
			return
		}
		dir := c.a.Loaded.Paths.Checkpoints(c.a.Env.Root)
		st, err := checkpoint.Open(ctx, checkpoint.Options{
			Dir: filepath.Join(dir, "repo"), Root: c.a.Env.Root,
			// A workspace that holds shiro's own state (a session started
			// in the home directory) must not snapshot it.
			Exclude: []string{c.a.Loaded.Paths.State()},
		})
		if err != nil {
			c.err = err
			return
		}
		c.k = checkpoint.NewKeeper(st, filepath.Join(dir, "sessions"))
	})
	return c.k, c.err
}

// problem is a notice for err, said once per session when checkpoints
// cannot be opened at all, every time a snapshot fails.
func (c *checkpointer) problem(err error, opening bool) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if opening && c.told {
		return nil
	}
	c.told = c.told || opening
	return []string{"checkpoint: " + err.Error() + " (/undo cannot undo this turn's changes)"}
}

// BeforeChange implements agent.TurnHooks.
func (c *checkpointer) BeforeChange(ctx context.Context, session string) []string {
	k, err := c.keeper(ctx)
	if err != nil {
		return c.problem(err, true)
	}
	c.mu.Lock()
	off := c.off
	c.mu.Unlock()
	if off {
		return nil
	}
	if err := k.BeforeChange(ctx, session); err != nil {
		if errors.Is(err, checkpoint.ErrTooMany) {
			c.mu.Lock()
			c.off = true
			c.mu.Unlock()
			return c.problem(fmt.Errorf("%w; checkpoints are off for the rest of this session", err), true)
		}
		return c.problem(err, false)
	}
	return nil
}

// Ended implements agent.TurnHooks. Every turn is journaled, so /undo
// can take back a turn's conversation even when it changed no file.
func (c *checkpointer) Ended(ctx context.Context, t agent.TurnEnd) agent.Ending {
	k, err := c.keeper(ctx)
	if err != nil {
		return agent.Ending{Notices: c.problem(err, true)}
	}
	uncovered := t.RanCommands && (c.a.Sandbox == nil || !c.a.Sandbox.Confined())
	_, err = k.EndTurn(ctx, t.SessionID, checkpoint.TurnInfo{Seq: t.Seq, Text: t.Typed, HistoryLen: t.HistoryLen, Opening: t.Opening, Uncovered: uncovered})
	if err != nil {
		return agent.Ending{Notices: c.problem(err, false)}
	}
	return agent.Ending{}
}

// Checkpoints is commands.CheckpointHost: nil when the store cannot open.
func (h host) Checkpoints() *checkpoint.Keeper {
	k, _ := h.a.checkpoints.keeper(context.Background())
	return k
}

// PastCaps implements agent.Irreplaceable: the workspace files the
// checkpoints leave out. With checkpoints off (no git, a workspace too
// big) it knows of none: that is said once as a notice, and gating every
// command on it would stop all work.
func (c *checkpointer) PastCaps(ctx context.Context) []string {
	k, err := c.keeper(ctx)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	off := c.off
	c.mu.Unlock()
	if off {
		return nil
	}
	caps, err := k.Store().PastCaps(ctx)
	if err != nil {
		return nil
	}
	return caps
}

// close lets the store's watch of the workspace go, once the session has
// ended and takes no more snapshots; a store never opened has none.
func (c *checkpointer) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.k != nil {
		c.k.Store().Close()
	}
}
