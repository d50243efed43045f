package navtools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/tools"
)

// Limits of run_checks.
const (
	checksMinTimeoutMS     = 5_000
	checksMaxTimeoutMS     = 600_000
	checksDefaultTimeoutMS = 120_000
	failureLines           = 40  // output lines shown of a failed check
	failureLineCut         = 300 // characters kept of each
	planCacheSize          = 16
)

// group is a started command leading its own process group.
type group struct {
	cmd *exec.Cmd
	// exited is closed when the leader has exited.
	exited  chan struct{}
	waitErr error
}

// runChecksTool finds the project's test, lint and build commands and runs
// them. What it will run depends on files in the workspace, so the plan a
// call's Commands reported to the gate is kept and is exactly what Run
// runs, even if a file changes while the person decides.
type runChecksTool struct {
	env *tools.Env
	// grace is how long a timed-out check gets between SIGTERM and SIGKILL.
	grace time.Duration
	// drain is how long output may go on after the group is killed (a
	// process that left the group holding the pipe).
	drain time.Duration

	mu    sync.Mutex
	plans map[string][]check // by planKey
	order []string           // plan keys, oldest first
}

func newRunChecksTool(env *tools.Env) *runChecksTool {
	return &runChecksTool{env: env, grace: 2 * time.Second, drain: 500 * time.Millisecond, plans: map[string][]check{}}
}

func (*runChecksTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name:        "run_checks",
		Description: "Run the project's tests, lint and build, as found in AGENTS.md, package.json, go.mod, Cargo.toml or pytest config.",
		Schema: json.RawMessage(`{"type":"object","properties":{` +
			`"target":{"type":"string","description":"only commands containing this"},` +
			`"timeout":{"type":"integer","minimum":5000,"maximum":600000,"description":"ms each, default 120000"}},` +
			`"additionalProperties":false}`),
	}
}

func (t *runChecksTool) Meta() tools.Meta {
	return tools.Meta{
		Set:      tools.SetExtra,
		Mutating: true,
		Guidance: "run_checks: verify a change with the project's own tests and linters.",
		Subjects: t.commands,
		Commands: t.commands,
	}
}

type checksInput struct {
	Target  string `json:"target"`
	Timeout *int   `json:"timeout"`
}

// commands is the gate's view: the command lines this call would run.
func (t *runChecksTool) commands(input json.RawMessage) []string {
	if t.env == nil {
		return nil
	}
	var in checksInput
	if tools.Decode(tools.Call{Input: input}, &in) != nil {
		return nil
	}
	plan, err := selectChecks(discoverChecks(t.env), in.Target)
	if err != nil {
		return nil
	}
	t.remember(planKey(t.env, input), plan)
	out := make([]string, len(plan))
	for i, c := range plan {
		out[i] = c.command
	}
	return out
}

func planKey(env *tools.Env, input json.RawMessage) string {
	return env.Root + "\x00" + string(input)
}

func (t *runChecksTool) remember(key string, plan []check) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.plans[key]; !ok {
		t.order = append(t.order, key)
	}
	t.plans[key] = plan
	for len(t.order) > planCacheSize {
		delete(t.plans, t.order[0])
		t.order = t.order[1:]
	}
}

// take returns and forgets the plan the gate saw for this input.
func (t *runChecksTool) take(key string) ([]check, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	plan, ok := t.plans[key]
	if ok {
		delete(t.plans, key)
		i := 0
		for i < len(t.order) && t.order[i] != key {
			i++
		}
		t.order = append(t.order[:i], t.order[min(i+1, len(t.order)):]...)
	}
	return plan, ok
}

// selectChecks keeps the checks whose command or source contains target.
func selectChecks(found []check, target string) ([]check, error) {
	if len(found) == 0 {
		return nil, tools.Failf("No checks found: add test/lint/build commands in backticks to AGENTS.md, " +
			"a test or lint script to package.json, or use go.mod, Cargo.toml or a pytest config.")
	}
	target = strings.ToLower(strings.TrimSpace(target))
	if target == "" {
		return found, nil
	}
	var out []check
	var names []string
	for _, c := range found {
		names = append(names, c.command)
		if strings.Contains(strings.ToLower(c.command), target) || strings.Contains(strings.ToLower(c.source), target) {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, tools.Failf("No check matches %q; the checks found are: %s.", target, strings.Join(names, "; "))
	}
	return out, nil
}

func (t *runChecksTool) Run(ctx context.Context, call tools.Call) (string, error) {
	var in checksInput
	env, err := tools.Begin(call, t.env, &in)
	if err != nil {
		return "", err
	}
	timeoutMS := checksDefaultTimeoutMS
	if in.Timeout != nil {
		if *in.Timeout < checksMinTimeoutMS || *in.Timeout > checksMaxTimeoutMS {
			return "", tools.Failf("timeout must be from %d to %d milliseconds; got %d", checksMinTimeoutMS, checksMaxTimeoutMS, *in.Timeout)
		}
		timeoutMS = *in.Timeout
	}
	plan, ok := t.take(planKey(env, call.Input))
	if !ok {
		if plan, err = selectChecks(discoverChecks(env), in.Target); err != nil {
			return "", err
		}
	}
	results := make([]checkResult, 0, len(plan))
	for _, c := range plan {
		call.Emit("$ " + c.command + "\n")
		r, err := t.runOne(ctx, env, c, time.Duration(timeoutMS)*time.Millisecond, call.Emit)
		if err != nil {
			return "", err
		}
		results = append(results, r)
	}
	return tools.Cap(report(results)), nil
}

// checkResult is how one check went.
type checkResult struct {
	check
	passed bool
	status string // "exit 1", "timed out after 5000ms (killed)", ...
	head   []string
	more   int // output lines not kept
}

// runOne runs one check with `<shell> -lc` in its own process group, and
// kills the whole group on timeout or interruption.
func (t *runChecksTool) runOne(ctx context.Context, env *tools.Env, c check, timeout time.Duration, emit func(string)) (checkResult, error) {
	res := checkResult{check: c}
	pr, pw, err := os.Pipe()
	if err != nil {
		return res, fmt.Errorf("run %s: %w", c.command, err)
	}
	cmd := exec.Command(shellOf(env), "-lc", c.command)
	cmd.Dir = env.Root
	cmd.Env = env.CommandEnviron()
	cmd.Stdout, cmd.Stderr = pw, pw
	g, err := startGroup(cmd)
	_ = pw.Close() // the children hold their own copies
	if err != nil {
		_ = pr.Close()
		return res, fmt.Errorf("run %s: %w", c.command, err)
	}
	out := &headLines{max: failureLines}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		buf := make([]byte, 32*1024)
		for {
			n, err := pr.Read(buf)
			if n > 0 {
				out.write(buf[:n])
				emit(string(buf[:n]))
			}
			if err != nil {
				return
			}
		}
	}()

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	interrupted := false
	select {
	case <-g.exited:
	case <-timer.C:
		res.status = fmt.Sprintf("timed out after %dms (killed)", timeout.Milliseconds())
		t.stop(g)
	case <-ctx.Done():
		interrupted = true
		t.stop(g)
	}
	g.reap()
	// Everything in the group is dead; a process that left it may still
	// hold the pipe, so the output is given a moment, then cut off.
	_ = pr.SetReadDeadline(time.Now().Add(t.drain))
	<-readDone
	_ = pr.Close()
	if interrupted {
		return res, tools.ErrInterrupted
	}
	res.head, res.more = out.lines()
	if res.status == "" {
		res.passed = g.waitErr == nil
		res.status = exitStatus(g.waitErr)
	}
	return res, nil
}

// stop asks the group to end, then kills it after the grace period.
func (t *runChecksTool) stop(g *group) {
	g.signal(syscall.SIGTERM)
	grace := time.NewTimer(t.grace)
	defer grace.Stop()
	select {
	case <-g.exited:
	case <-grace.C:
	}
	g.signal(syscall.SIGKILL)
	<-g.exited
}

func exitStatus(err error) string {
	if err == nil {
		return "exit 0"
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if code := ee.ExitCode(); code >= 0 {
			return fmt.Sprintf("exit %d", code)
		}
		return ee.String() // "signal: killed"
	}
	return err.Error()
}

// report renders the results: a verdict, a row per check, and the head of
// each failure's output.
func report(results []checkResult) string {
	failed := 0
	for _, r := range results {
		if !r.passed {
			failed++
		}
	}
	var b strings.Builder
	if failed == 0 {
		fmt.Fprintf(&b, "checks: all passed (%d)\n", len(results))
	} else {
		fmt.Fprintf(&b, "checks: FAILED (%d of %d)\n", failed, len(results))
	}
	for _, r := range results {
		verdict := "PASS"
		if !r.passed {
			verdict = "FAIL"
		}
		fmt.Fprintf(&b, "%s  %s  (%s)", verdict, r.command, r.source)
		if !r.passed {
			b.WriteString("  " + r.status)
		}
		b.WriteByte('\n')
	}
	for _, r := range results {
		if r.passed {
			continue
		}
		fmt.Fprintf(&b, "\n--- %s ---\n", r.command)
		if len(r.head) == 0 {
			b.WriteString("(no output)\n")
		}
		for _, l := range r.head {
			b.WriteString(cut(l, failureLineCut) + "\n")
		}
		if r.more > 0 {
			fmt.Fprintf(&b, "[... %d more lines]\n", r.more)
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// headLines keeps the first max lines of a stream and counts the rest.
type headLines struct {
	max     int
	kept    []string
	partial strings.Builder
	pending bool // part of a line has been seen
	dropped int
}

func (h *headLines) write(p []byte) {
	for len(p) > 0 {
		nl := -1
		for i, c := range p {
			if c == '\n' {
				nl = i
				break
			}
		}
		if nl < 0 {
			h.pending = true
			if len(h.kept) < h.max && h.partial.Len() < 4*failureLineCut {
				h.partial.Write(p[:min(len(p), 4*failureLineCut-h.partial.Len())])
			}
			return
		}
		if len(h.kept) < h.max && h.partial.Len() < 4*failureLineCut {
			h.partial.Write(p[:min(nl, 4*failureLineCut-h.partial.Len())])
		}
		h.endLine()
		p = p[nl+1:]
	}
}

func (h *headLines) endLine() {
	if len(h.kept) < h.max {
		h.kept = append(h.kept, strings.TrimSuffix(strings.ToValidUTF8(h.partial.String(), "\uFFFD"), "\r"))
	} else {
		h.dropped++
	}
	h.partial.Reset()
	h.pending = false
}

// lines returns the kept lines and how many more there were.
func (h *headLines) lines() ([]string, int) {
	if h.pending {
		h.endLine()
	}
	return h.kept, h.dropped
}
