package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/secrets"
)

// gitScanTimeout bounds each git run of the history scan.
const gitScanTimeout = 5 * time.Minute

// maxHistoryBlobs bounds how many versions of secret files are read from
// git, and maxHistoryBlob how large one may be; what is over is announced.
const (
	maxHistoryBlobs = 20_000
	maxHistoryBlob  = 16 << 20
)

// gitSecrets adds to scan the values of every version of a secret file
// that git holds in the index or can reach from a ref or a reflog entry,
// and the repository's git folders. A workspace outside any repository
// has none; without git installed, nothing can print one.
func (e *Env) gitSecrets(ctx context.Context, scan *secretScan) error {
	git, err := exec.LookPath("git")
	if err != nil {
		return nil
	}
	out, err := e.runGit(ctx, git, nil, "rev-parse", "--absolute-git-dir", "--git-common-dir")
	if err != nil {
		var notRepo *gitFailed
		if errors.As(err, &notRepo) {
			return nil
		}
		return err
	}
	dirs := strings.Fields(string(out))
	for i, d := range dirs {
		if !filepath.IsAbs(d) {
			dirs[i] = filepath.Join(e.Root, d)
		}
	}
	scan.gitDirs = slices.Compact(dirs)

	specs := secretPathspecs()
	// Every commit that touches a secret path, in every ref and reflog,
	// merges against each parent, renames as a delete and an add: each
	// listed change gives the blob before and after.
	logArgs := []string{"log", "--all", "--reflog", "--full-history", "-m", "--no-renames",
		"--raw", "--no-abbrev", "-z", "--format="}
	// What a fetch brought without a ref (`git fetch origin <id>`) is
	// named only in FETCH_HEAD, and `git log -p FETCH_HEAD` shows it.
	fetched := fetchHeads(scan.gitDirs)
	listing, err := e.runGit(ctx, git, nil, slices.Concat(logArgs, fetched, []string{"--"}, specs)...)
	if err != nil && len(fetched) > 0 {
		// A FETCH_HEAD naming objects since pruned: without it, and said.
		scan.notes = append(scan.notes, "the commits named in FETCH_HEAD could not be read")
		listing, err = e.runGit(ctx, git, nil, slices.Concat(logArgs, []string{"--"}, specs)...)
	}
	if err != nil {
		return fmt.Errorf("list the history of secret files: %w", err)
	}
	blobs := map[string]string{} // blob id -> a path it was at
	rawBlobs(listing, blobs)
	staged, err := e.runGit(ctx, git, nil, append([]string{"ls-files", "--stage", "-z", "--"}, specs...)...)
	if err != nil {
		return fmt.Errorf("list the staged secret files: %w", err)
	}
	stagedBlobs(staged, blobs)
	return e.readBlobs(ctx, git, blobs, scan)
}

// fetchHeads returns the object ids FETCH_HEAD names in the git folders.
func fetchHeads(gitDirs []string) []string {
	var ids []string
	for _, g := range gitDirs {
		data, err := os.ReadFile(filepath.Join(g, "FETCH_HEAD"))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			id, _, _ := strings.Cut(line, "\t")
			if (len(id) == 40 || len(id) == 64) && strings.Trim(id, "0123456789abcdef") == "" && !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// secretPathspecs are pathspecs for the names secrets recognises, in any
// folder and any case. They narrow what git lists; secrets.Classify then
// decides, with its exceptions (.env.example).
func secretPathspecs() []string {
	var specs []string
	for _, p := range secrets.NamePatterns() {
		if p.Kind != secrets.None {
			specs = append(specs, ":(glob,icase)**/"+p.Glob)
		}
	}
	for _, d := range []string{".ssh", ".aws", ".gnupg"} {
		specs = append(specs, ":(glob,icase)**/"+d+"/**")
	}
	return specs
}

// rawBlobs reads `--raw -z` records (":old-mode new-mode old new status",
// NUL, path, NUL) and keeps both blobs of each change to a secret path.
func rawBlobs(listing []byte, blobs map[string]string) {
	fields := bytes.Split(listing, []byte{0})
	for i := 0; i+1 < len(fields); i++ {
		head := strings.TrimLeft(string(fields[i]), "\n")
		if !strings.HasPrefix(head, ":") {
			continue
		}
		parts := strings.Fields(head)
		path := string(fields[i+1])
		i++
		if len(parts) < 5 || secrets.Classify(path) == secrets.None {
			continue
		}
		for _, id := range parts[2:4] {
			if strings.Trim(id, "0") != "" {
				blobs[id] = path
			}
		}
	}
}

// stagedBlobs reads `ls-files --stage -z` ("mode id stage\tpath" NUL).
func stagedBlobs(listing []byte, blobs map[string]string) {
	for _, rec := range bytes.Split(listing, []byte{0}) {
		meta, path, ok := strings.Cut(string(rec), "\t")
		parts := strings.Fields(meta)
		if ok && len(parts) == 3 && secrets.Classify(path) != secrets.None {
			blobs[parts[1]] = path
		}
	}
}

// readBlobs reads the blobs with `git cat-file --batch` and adds their
// values to scan. A blob over maxHistoryBlob bytes is not read, and said
// so: no secret file is that large, and reading it whole would not be
// bounded.
func (e *Env) readBlobs(ctx context.Context, git string, blobs map[string]string, scan *secretScan) error {
	ids := make([]string, 0, len(blobs))
	for id := range blobs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if len(ids) == 0 {
		return nil
	}
	sizes, err := e.runGit(ctx, git, []byte(strings.Join(ids, "\n")+"\n"), "cat-file", "--batch-check")
	if err != nil {
		return fmt.Errorf("size the history of secret files: %w", err)
	}
	ids = ids[:0]
	var skipped []string
	for _, line := range strings.Split(string(sizes), "\n") {
		parts := strings.Fields(line)
		if len(parts) != 3 || parts[1] != "blob" {
			continue
		}
		if size, err := strconv.Atoi(parts[2]); err != nil || size > maxHistoryBlob {
			skipped = append(skipped, blobs[parts[0]])
			continue
		}
		ids = append(ids, parts[0])
	}
	if len(skipped) > 0 {
		scan.notes = append(scan.notes, fmt.Sprintf("%d versions of secret files in git history are over %d MB and were not read (%s)",
			len(skipped), maxHistoryBlob>>20, strings.Join(slices.Compact(slices.Sorted(slices.Values(skipped))), ", ")))
	}
	if len(ids) > maxHistoryBlobs {
		scan.notes = append(scan.notes, fmt.Sprintf("git holds %d versions of secret files; only %d were read", len(ids), maxHistoryBlobs))
		ids = ids[:maxHistoryBlobs]
	}
	if len(ids) == 0 {
		return nil
	}
	out, err := e.runGit(ctx, git, []byte(strings.Join(ids, "\n")+"\n"), "cat-file", "--batch")
	if err != nil {
		return fmt.Errorf("read the history of secret files: %w", err)
	}
	for len(out) > 0 {
		header, rest, ok := bytes.Cut(out, []byte{'\n'})
		if !ok {
			break
		}
		parts := strings.Fields(string(header))
		if len(parts) != 3 || parts[1] != "blob" {
			out = rest // "<id> missing": no content follows
			continue
		}
		size, err := strconv.Atoi(parts[2])
		if err != nil || size < 0 || size > len(rest) {
			return fmt.Errorf("read the history of secret files: bad cat-file header %q", header)
		}
		path := blobs[parts[0]]
		for _, v := range secrets.Values(secrets.Classify(path), rest[:size]) {
			scan.found = append(scan.found, secrets.Secret{Value: v, Source: path + " (git history)"})
		}
		out = rest[min(size+1, len(rest)):]
	}
	return nil
}

// gitFailed is git's own refusal (a non-zero exit), told apart from a
// failure to run it.
type gitFailed struct{ msg string }

func (g *gitFailed) Error() string { return g.msg }

// runGit runs git in the workspace root as every command runs (through
// the Launcher, with the command environment), with the options that keep
// it from running anything the repository's config names, and returns
// its output.
func (e *Env) runGit(ctx context.Context, git string, stdin []byte, args ...string) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	argv := append([]string{git, "--no-pager", "-c", "core.fsmonitor=false", "-c", "core.quotepath=false",
		"-c", "log.showSignature=false", "-c", "diff.external="}, args...)
	res, err := proc.Run(ctx, proc.Spec{
		Argv:       argv,
		Dir:        e.Root,
		Env:        append(e.CommandEnviron(), "GIT_OPTIONAL_LOCKS=0"),
		Stdin:      stdin,
		Stdout:     proc.Stream(func(p []byte) { stdout.Write(p) }),
		Stderr:     proc.Stream(func(p []byte) { stderr.Write(p) }),
		Timeout:    gitScanTimeout,
		NewSession: true,
		Launcher:   e.Launcher,
	})
	if err != nil {
		return nil, fmt.Errorf("run git %s: %w", args[0], err)
	}
	switch {
	case res.Stopped != nil:
		return nil, fmt.Errorf("git %s: %w", args[0], res.Stopped)
	case !res.Exit.Success():
		return nil, &gitFailed{msg: fmt.Sprintf("git %s: %s: %s", args[0], res.Exit, strings.TrimSpace(stderr.String()))}
	}
	return stdout.Bytes(), nil
}
