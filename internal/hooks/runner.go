package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"time"

	"github.com/shiro-neko/shiro/internal/proc"
)

// Options configure a Runner.
type Options struct {
	// DefaultTimeout is the config's hookTimeoutMs; zero means 5 s. A
	// hook's own manifest timeout, which the person approved with the
	// hook, takes its place for that hook.
	DefaultTimeout time.Duration
	// CacheDir is a private folder (created 0700) for the verified copies
	// hooks run from, such as $SHIRO_HOME/.shiro-neko/hook-cache.
	// Without one no hook can run, so pre_tool hooks block.
	CacheDir string
	// SessionID and ProjectDir are passed to hooks (stdin session_id and
	// $SHIRO_PROJECT_DIR). ProjectDir is also the working directory when a
	// call names no cwd.
	SessionID  string
	ProjectDir string
	// TranscriptPath is the session's log, which Claude Code's hooks are
	// told as transcript_path; empty when there is none.
	TranscriptPath string
	// Validate checks a rewritten input against the tool's JSON schema.
	// Without it a rewrite cannot be checked, so it blocks.
	Validate func(tool string, input json.RawMessage) error
	// Observe, when set, hears about every hook that was considered for a
	// call, for the session log. It is called synchronously: keep it quick.
	Observe func(Run)
	// Launcher, when set, is put in front of every hook process: the seam
	// for an OS sandbox (see package proc).
	Launcher proc.Launcher
	// Passthrough names variables of shiro's environment a hook gets
	// besides the few of baseEnv: the user's env.passthrough, the one
	// way a hook can be handed a token.
	Passthrough []string
}

// Run reports one hook's part in a call or turn.
type Run struct {
	Hook     string
	Kind     Kind
	Tool     string // pre_tool only
	Digest   string // the approved digest, when the hook ran
	Duration time.Duration
	Outcome  Outcome
	// Reason explains a block or failure; empty otherwise.
	Reason string
}

// Outcome is how a hook's part ended.
type Outcome string

const (
	OutcomeAllowed  Outcome = "allowed"
	OutcomeRewrote  Outcome = "rewrote"
	OutcomeRefused  Outcome = "refused"  // the hook said no
	OutcomeFailed   Outcome = "failed"   // crash, timeout, bad output…
	OutcomeBlocked  Outcome = "blocked"  // never ran: not approved, changed or invalid
	OutcomeFinished Outcome = "finished" // after_turn ran cleanly
)

// Runner verifies and runs hooks. It is safe for concurrent use.
type Runner struct {
	set   *Set
	trust *Trust
	opts  Options
	cache *cache
	env   []string // what hooks inherit; see hookEnv
}

// NewRunner prepares to run the hooks of set. A nil trust (hooks.json
// could not be read) approves nothing: every covered call is blocked with
// the reason, rather than hooks silently not running.
func NewRunner(set *Set, trust *Trust, opts Options) *Runner {
	if set == nil {
		set = &Set{}
	}
	if opts.DefaultTimeout <= 0 {
		opts.DefaultTimeout = DefaultTimeout
	}
	return &Runner{set: set, trust: trust, opts: opts, cache: &cache{dir: opts.CacheDir}, env: baseEnv(opts.ProjectDir, opts.Passthrough)}
}

// baseEnv is the whole environment a hook gets, besides its event and
// name: a short list of harmless variables rather than shiro's whole
// environment scrubbed, since the environment holds tokens and server
// addresses under names no rule foresees, and a hook needs none of them.
// The names the person passes through are added.
func baseEnv(projectDir string, passthrough []string) []string {
	path, ok := os.LookupEnv("PATH")
	if !ok {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	env := []string{"PATH=" + path}
	for _, key := range []string{"HOME", "LANG"} {
		if v, ok := os.LookupEnv(key); ok {
			env = append(env, key+"="+v)
		}
	}
	for _, key := range passthrough {
		switch key {
		case "PATH", "HOME", "LANG", "SHIRO_PROJECT_DIR", "SHIRO_HOOK_EVENT", "SHIRO_HOOK_NAME":
			continue // set above or below, once
		}
		if v, ok := os.LookupEnv(key); ok {
			env = append(env, key+"="+v)
		}
	}
	return append(env, "SHIRO_PROJECT_DIR="+projectDir)
}

func (r *Runner) hookEnv(kind Kind, name string) []string {
	env := append([]string(nil), r.env...)
	return append(env, "SHIRO_HOOK_EVENT="+string(kind), "SHIRO_HOOK_NAME="+name)
}

var errNoTrust = errors.New("the hook approvals (hooks.json) could not be read when shiro started")

// lookup finds the approval of a folder; err means the approvals cannot be
// read, so nothing counts as approved.
func (r *Runner) lookup(dir string) (Record, bool, error) {
	if r.trust == nil {
		return Record{}, false, errNoTrust
	}
	return r.trust.Lookup(dir)
}

// considered reports whether the folder e takes part in an event for a
// tool: by its manifest as loaded, or by the manifest that was approved.
// The approved one counts even when the hook has since changed, so editing
// a guard's "tools" cannot narrow what it blocks before re-approval.
func (r *Runner) considered(e entry, kind Kind, tool string) (bool, error) {
	if e.cmd != nil {
		// A command's coverage is its matcher as it is now: a changed
		// entry is a different hook, which blocks until approved.
		return e.covers(kind, tool), nil
	}
	rec, ok, err := r.lookup(e.hook.Dir)
	if err != nil {
		return e.covers(kind, tool), err
	}
	return e.covers(kind, tool) || (ok && manifestCovers(rec.Manifest, kind, tool)), nil
}

func manifestCovers(m Manifest, kind Kind, tool string) bool {
	return m.Hook == kind && (!kind.toolScoped() || coversTool(m.Tools, tool))
}

// verified is a hook checked right before it runs.
type verified struct {
	hook   Hook   // as found on disk just now
	record Record // its approval; the digest matches hook.Digest
	argv   []string
	// cmd is set for a hook of Claude Code's settings, which speaks its
	// protocol; timeout is then its own.
	cmd     *command
	timeout time.Duration
}

// verify re-hashes the folder, compares it with the approval and prepares
// the private copy; on any doubt it returns the message to block with.
func (r *Runner) verify(e entry) (verified, string) {
	if e.cmd != nil {
		return r.verifyCommand(e)
	}
	name := e.hook.Name
	fresh := inspectAt(e.hook.Dir, name, e.hook.Origin)
	rec, approved, err := r.lookup(fresh.hook.Dir)
	switch {
	case err != nil:
		return verified{}, msgNoTrust(name, err)
	case fresh.err != nil:
		if _, err := os.Stat(e.hook.Dir); errors.Is(err, fs.ErrNotExist) {
			return verified{}, msgRemoved(name, e.hook.Dir)
		}
		return verified{}, msgInvalid(name, fresh.err)
	case !approved:
		return verified{}, msgNotApproved(name, fresh.hook.Dir, fresh.hook.Digest)
	case rec.Digest != fresh.hook.Digest:
		return verified{}, msgChanged(name, fresh.hook.Dir, fresh.hook.Digest)
	}
	run, err := r.cache.runPath(fresh.hook, rec.Digest)
	if errors.Is(err, errChangedDuringCopy) {
		return verified{}, msgChangedDuringCopy(name, fresh.hook.Dir)
	}
	if err != nil {
		return verified{}, msgUnverifiable(name, fresh.hook.Dir, err)
	}
	return verified{hook: fresh.hook, record: rec, argv: []string{run}}, ""
}

// verifyCommand checks a Claude Code hook: one of the person's own
// settings runs as it is; a project's runs only with the digest approved.
func (r *Runner) verifyCommand(e entry) (verified, string) {
	fresh := e.inspect()
	name := e.hook.Name
	v := verified{hook: fresh.hook, argv: []string{"/bin/sh", "-c", e.cmd.src.Command}, cmd: e.cmd, timeout: e.cmd.timeout()}
	if e.err != nil {
		return verified{}, msgInvalid(name, e.err)
	}
	if fresh.hook.Origin == OriginUser {
		v.record = Record{Name: name, Digest: fresh.hook.Digest}
		return v, ""
	}
	rec, approved, err := r.lookup(fresh.hook.Dir)
	switch {
	case err != nil:
		return verified{}, msgNoTrust(name, err)
	case !approved:
		return verified{}, msgNotApproved(name, fresh.hook.Dir, fresh.hook.Digest)
	case rec.Digest != fresh.hook.Digest:
		return verified{}, msgChanged(name, fresh.hook.Dir, fresh.hook.Digest)
	}
	v.record = rec
	return v, ""
}

// execute runs a verified hook with its approved timeout.
func (r *Runner) execute(ctx context.Context, v verified, kind Kind, cwd string, stdin []byte) (procOutcome, time.Duration) {
	timeout := r.opts.DefaultTimeout
	if t := v.record.Manifest.TimeoutDuration(); t > 0 {
		timeout = t
	}
	env := r.hookEnv(kind, v.hook.Name)
	if v.cmd != nil {
		timeout = v.timeout
		env = append(env, "CLAUDE_PROJECT_DIR="+v.cmd.project)
	}
	if cwd == "" {
		cwd = r.opts.ProjectDir
	}
	out := runProcess(ctx, procSpec{
		argv:       v.argv,
		dir:        cwd,
		env:        env,
		stdin:      stdin,
		timeout:    timeout,
		keepStdout: kind != KindAfterTurn || v.cmd != nil,
		launcher:   r.opts.Launcher,
	})
	return out, timeout
}

// failure describes a run that did not end cleanly, or returns "".
func failure(name string, o procOutcome, timeout time.Duration) string {
	switch {
	case o.startErr != nil:
		return msgStartFailed(name, o.startErr)
	case o.overflow:
		return msgOverflow(name)
	case o.timedOut:
		return msgTimedOut(name, timeout)
	case o.canceled:
		return msgCanceled(name)
	case o.signal != "":
		return msgSignaled(name, o.signal, o.stderr)
	case o.exited && o.exitCode != 0:
		return msgExited(name, o.exitCode, o.stderr)
	case o.leftOpen:
		return msgLeftOpen(name)
	case !o.exited:
		return msgStartFailed(name, errors.New("it ended in an unknown way"))
	}
	return ""
}

func (r *Runner) observe(run Run) {
	if r.opts.Observe != nil {
		r.opts.Observe(run)
	}
}
