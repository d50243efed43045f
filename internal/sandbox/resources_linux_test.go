package sandbox_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/sandbox"
	"github.com/shiro-neko/shiro/internal/supervise"
)

// bombShiroVar makes the test binary play shiro under a pids limit it
// shares with its commands (see TestMain and runBombShiro).
const bombShiroVar = "SANDBOX_TEST_BOMB_SHIRO"

// bombScenario is what the shiro stand-in runs.
type bombScenario struct {
	Policy sandbox.Policy
	// Shared is how many more tasks the limit shiro shares with its
	// commands lets in: a pids cgroup (Cgroup, as root) or RLIMIT_NPROC
	// over the user's tasks (as anyone else), as a systemd TasksMax or a
	// ulimit -u would.
	Shared int
	Cgroup string
	Bomb   []string
}

// bombReport is what the stand-in saw.
type bombReport struct {
	BombExit string
	BombOK   bool
	BombOut  string
	After    string
	AfterOK  bool
	// Took is how long the bomb ran, for the log.
	Took string
}

// The limit a bomb runs into is the command's own, not the one it shares
// with shiro: the command fails, the supervisor stops what it left, and
// shiro, which would abort if it could not start a thread, goes on to run
// the next command. Run as root (a pids cgroup per command) and as an
// ordinary user (RLIMIT_NPROC), e.g. shirotest.
func TestForkBombEndsTheCommandNotShiro(t *testing.T) {
	cases := []struct {
		name string
		bomb []string
		// spawned is whether the bomb counts what it started.
		spawned bool
	}{
		{"spawner", []string{"sh", "-c", `n=0; while :; do sleep 1000 & n=$((n+1)); echo "started $n"; done`}, true},
		{"fork bomb", []string{"bash", "--norc", "-c", `:(){ :|:& };:`}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			const budget = 100
			f.policy.Resources = sandbox.Resources{MaxProcesses: budget}
			sc := bombScenario{Policy: f.policy, Shared: 2*budget + 100, Bomb: tc.bomb}
			if os.Getuid() == 0 {
				sc.Cgroup = sharedPidsCgroup(t)
			}
			rep := runBombScenario(t, sc)
			t.Logf("the bomb ran %s and ended with %s", rep.Took, rep.BombExit)
			if !rep.AfterOK || rep.After != "alive\n" {
				t.Errorf("the command after the bomb: ok %v, output %q", rep.AfterOK, rep.After)
			}
			if !tc.spawned {
				// bash retries a refused fork for up to 15 s before it
				// gives up; the bash tool's timeout, here 3 s, ends it
				// sooner, or the supervisor stops what it left once the
				// bomb's first shell has exited, which the helper kept
				// for the session often does before the bomb has
				// reached its limit (the spawner above shows the limit).
				refused := strings.Contains(rep.BombOut, "Resource temporarily unavailable")
				stopped := strings.Contains(rep.BombOut, "shiro: the command left")
				if !refused && !stopped {
					t.Errorf("the bomb was neither refused a fork nor stopped:\n%s", tail(rep.BombOut))
				}
				return
			}
			if os.Getuid() == 0 && !strings.Contains(rep.BombOut, fmt.Sprintf("reached its limit of %d processes", budget)) {
				t.Errorf("the supervisor did not report the limit:\n%s", tail(rep.BombOut))
			}
			if rep.BombOK {
				t.Errorf("the spawner succeeded (%s):\n%s", rep.BombExit, tail(rep.BombOut))
			}
			if !strings.Contains(rep.BombOut, "Cannot fork") {
				t.Errorf("the spawner was not refused a fork:\n%s", tail(rep.BombOut))
			}
			n := lastStarted(rep.BombOut)
			t.Logf("the spawner started %d processes", n)
			if n > budget || n < budget/2 {
				t.Errorf("the spawner started %d processes; its limit is %d more tasks", n, budget)
			}
		})
	}
}

// sharedPidsCgroup makes a pids cgroup for the shiro stand-in, under the
// test's own, and removes it once everything in it has exited.
func sharedPidsCgroup(t *testing.T) string {
	t.Helper()
	pids, _, err := supervise.CgroupsFor()
	if pids == "" {
		t.Skipf("no pids cgroup to share: %v", err)
	}
	dir := filepath.Join(pids, fmt.Sprintf("shiro-test-%d-%d", os.Getpid(), time.Now().UnixNano()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The stand-in has exited; its helpers exit with it.
		data, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
		for _, field := range strings.Fields(string(data)) {
			if pid, err := strconv.Atoi(field); err == nil && !exits(t, pid) {
				t.Errorf("process %d is still in the shared cgroup", pid)
			}
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if e.IsDir() {
				t.Errorf("the command cgroup %s was left behind", e.Name())
				_ = syscall.Rmdir(filepath.Join(dir, e.Name()))
			}
		}
		if err := syscall.Rmdir(dir); err != nil {
			t.Errorf("remove %s: %v", dir, err)
		}
	})
	return dir
}

// runBombScenario runs sc in a shiro stand-in and returns its report; the
// stand-in dying (a Go runtime that could not start a thread) fails the
// test.
func runBombScenario(t *testing.T, sc bombScenario) bombReport {
	t.Helper()
	raw, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 4*testDeadline)
	defer cancel()
	shiro := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	shiro.Env = append(os.Environ(), bombShiroVar+"="+string(raw))
	var stdout, stderr strings.Builder
	shiro.Stdout, shiro.Stderr = &stdout, &stderr
	if err := shiro.Run(); err != nil {
		t.Fatalf("shiro did not survive the bomb: %v\n%s", err, tail(stderr.String()))
	}
	var rep bombReport
	if err := json.Unmarshal([]byte(stdout.String()), &rep); err != nil {
		t.Fatalf("the stand-in's report: %v\n%s\n%s", err, stdout.String(), tail(stderr.String()))
	}
	return rep
}

// runBombShiro is the shiro stand-in: it puts itself under the shared
// limit, runs the bomb and then another command through the sandbox, and
// prints what it saw. It exits 0 if it lives to tell.
func runBombShiro(raw string) {
	var sc bombScenario
	if err := json.Unmarshal([]byte(raw), &sc); err != nil {
		panic(err)
	}
	if err := shareLimit(sc); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	sb, err := sandbox.New(sc.Policy)
	if err != nil {
		panic(err)
	}
	run := func(argv []string, timeout time.Duration) (proc.Result, string) {
		out := &syncBuffer{}
		res, err := proc.Run(context.Background(), proc.Spec{
			Argv: argv, Dir: sc.Policy.Workspace,
			Stdout: proc.Stream(out.write), Stderr: proc.SameAsStdout{},
			Grace: 100 * time.Millisecond, Timeout: timeout, NewSession: true, DieWithParent: true,
			Launcher: sb,
		})
		if err != nil {
			fmt.Fprintf(os.Stderr, "run %q: %v\n", argv, err)
			os.Exit(4)
		}
		return res, out.String()
	}
	var rep bombReport
	began := time.Now()
	done := make(chan struct{})
	go needThreads(done)
	res, out := run(sc.Bomb, 3*time.Second)
	close(done)
	rep.Took = time.Since(began).String()
	rep.BombExit, rep.BombOK, rep.BombOut = res.Exit.String(), res.Exit.Success(), out
	res, out = run([]string{"sh", "-c", "echo alive"}, 0)
	rep.AfterOK, rep.After = res.Exit.Success(), out
	sb.Close()
	if err := json.NewEncoder(os.Stdout).Encode(rep); err != nil {
		panic(err)
	}
	os.Exit(0)
}

// needThreads makes the stand-in start OS threads while the bomb runs, as
// shiro does when it streams output, talks to the model and draws: a
// goroutine that exits locked to its thread takes the thread with it, so
// the next one needs a new one. Should the bomb fill the shared limit,
// the Go runtime aborts (it cannot do without the thread).
func needThreads(done <-chan struct{}) {
	pace := time.NewTicker(time.Millisecond)
	defer pace.Stop()
	for {
		select {
		case <-done:
			return
		case <-pace.C:
		}
		started := make(chan struct{})
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends here
			close(started)
		}()
		<-started
	}
}

// shareLimit puts the stand-in under a limit of sc.Shared more tasks.
func shareLimit(sc bombScenario) error {
	if sc.Cgroup != "" {
		if err := os.WriteFile(filepath.Join(sc.Cgroup, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid())), 0); err != nil {
			return fmt.Errorf("join the shared cgroup: %w", err)
		}
		data, err := os.ReadFile(filepath.Join(sc.Cgroup, "pids.current"))
		if err != nil {
			return err
		}
		cur, err := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(sc.Cgroup, "pids.max"), []byte(strconv.Itoa(cur+sc.Shared)), 0)
	}
	n := userTasks()
	lim := unix.Rlimit{Cur: uint64(n + sc.Shared), Max: uint64(n + sc.Shared)}
	if err := unix.Setrlimit(unix.RLIMIT_NPROC, &lim); err != nil {
		return fmt.Errorf("set RLIMIT_NPROC: %w", err)
	}
	return nil
}

// userTasks counts the tasks (threads too) of this process's user.
func userTasks() int {
	entries, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		info, err := os.Stat("/proc/" + e.Name())
		if err != nil || info.Sys().(*syscall.Stat_t).Uid != uint32(os.Getuid()) {
			continue
		}
		tasks, _ := os.ReadDir("/proc/" + e.Name() + "/task")
		n += len(tasks)
	}
	return n
}

// lastStarted is the highest "started N" line of out.
func lastStarted(out string) int {
	last := 0
	for line := range strings.Lines(out) {
		if rest, ok := strings.CutPrefix(line, "started "); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(rest)); err == nil {
				last = max(last, n)
			}
		}
	}
	return last
}

// tail is the end of out, enough to see why.
func tail(out string) string {
	if len(out) > 2000 {
		return "..." + out[len(out)-2000:]
	}
	return out
}

// A memory hog is killed in its own memory cgroup, which the supervisor
// reports; the next command runs. Only where such a cgroup can be made
// (root here); elsewhere `shiro sandbox` says memory is not limited.
func TestMemoryHogEndsInItsOwnCgroup(t *testing.T) {
	if _, memory, err := supervise.CgroupsFor(); memory == "" {
		t.Skipf("no memory cgroup can be made here: %v", err)
	}
	f := newFixture(t)
	f.policy.Resources = sandbox.Resources{MaxMemoryMB: 64}
	sb := f.sandbox(t)
	if st := sb.Status().Resources; !strings.Contains(st, "memory: 64 MiB per command") {
		t.Errorf("status says %q", st)
	}
	// tail keeps a line until its end, which /dev/zero never gives.
	res, out := runIn(t, sb, f.ws, "head -c 1G /dev/zero | tail -n 1 >/dev/null")
	if res.Exit.Success() {
		t.Fatalf("the hog succeeded:\n%s", out)
	}
	if !strings.Contains(out, "ran out of its 64 MiB of memory") {
		t.Errorf("the supervisor did not report the memory limit:\n%s", out)
	}
	if res, out := runIn(t, sb, f.ws, "echo alive"); !res.Exit.Success() || out != "alive\n" {
		t.Errorf("the next command: %s %q", res.Exit, out)
	}
}

// No file a command writes grows past sandbox.maxFileMB: the write that
// would fails (SIGXFSZ, "File too large"), as root and as anyone else.
func TestFileSizeIsCapped(t *testing.T) {
	f := newFixture(t)
	f.policy.Resources = sandbox.Resources{MaxFileMB: 1}
	sb := f.sandbox(t)
	if st := sb.Status().Resources; !strings.Contains(st, "file size: 1 MiB (RLIMIT_FSIZE)") {
		t.Errorf("status says %q", st)
	}
	res, out := runIn(t, sb, f.ws, "head -c 3M /dev/zero > big")
	if res.Exit.Success() {
		t.Errorf("writing 3 MiB succeeded:\n%s", out)
	}
	info, err := os.Stat(filepath.Join(f.ws, "big"))
	if err != nil {
		t.Fatal(err)
	}
	if info.Size() != 1<<20 {
		t.Errorf("the file grew to %d bytes; the cap is %d", info.Size(), 1<<20)
	}
	// The command cannot lift the cap: its hard limit is lowered too.
	if res, out := runIn(t, sb, f.ws, "ulimit -f unlimited"); res.Exit.Success() {
		t.Errorf("the command raised its file size limit:\n%s", out)
	}
	// The supervisor itself is not held to it: the cap was lowered for
	// the command alone.
	if res, out := runIn(t, sb, f.ws, "head -c 1K /dev/zero > small && wc -c < small"); !res.Exit.Success() || strings.TrimSpace(out) != "1024" {
		t.Errorf("a small file: %s %q", res.Exit, out)
	}
}
