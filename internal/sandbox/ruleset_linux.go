package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// rulesetCache keeps the Landlock ruleset of the last command, so that
// the next one with the same rules needs no new one: building it costs a
// few system calls per rule, and every helper would otherwise pay them
// before its command starts. A ruleset holds the files its rules name,
// not their paths, so the rules are the same only while every path still
// names the same file.
type rulesetCache struct {
	mu      sync.Mutex
	key     string
	current *os.File
	listing *listing // the last read grants carved
	// now is the clock stamps are judged by; nil is time.Now (tests
	// move it on, since every folder they make is new).
	now func() time.Time
	// readDir lists a folder; nil is os.ReadDir (tests count listings).
	readDir func(string) ([]os.DirEntry, error)
}

// listing is what carving "/" around a set of secrets gave: for each
// folder listed and unchanged since, its stamp and the grants among its
// entries.
type listing struct {
	excluded []string
	folders  map[string]listedFolder
}

type listedFolder struct {
	stamp  string
	grants []string
}

// readGrants carves "/" into what a command may read: everything but the
// secret locations (excluded, as Policy.secrets found them). Landlock can
// only grant a folder with everything beneath it, so each secret's
// ancestors are entered and their other entries granted one by one; the
// ancestors themselves are only listed (Landlock's read-dir right is
// granted on "/" as a whole, so every folder can be listed, secret ones
// too, but no secret file can be read). Entries created in those
// ancestors later (in the home directory, say) are not readable until the
// next command.
//
// It also returns a stamp that names the grants' files, for the
// ruleset's key. Listing the folders, and stat'ing each of the hundreds
// of entries for the key, was most of what preparing a command cost
// (issue 27). Both hold while a folder is unchanged: an entry is added,
// removed, renamed or replaced only by a change to its folder, which
// moves the folder's modification and change times. So a folder's last
// grants are reused while it keeps its identity and times, and its stamp
// stands for its entries' files. A folder changed so recently that a
// second change could share its timestamp (racyWindow) is listed afresh
// and its grants stat'ed one by one; it alone, since each folder is
// judged by its own times (a busy /tmp above SHIRO_HOME no longer costs
// the listing of every other folder).
func (c *rulesetCache) readGrants(excluded []string) (grants []string, stamp string) {
	cut, whole, done := newCarve("/", excluded)
	if done {
		return whole, ""
	}
	c.mu.Lock()
	last := c.listing
	c.mu.Unlock()
	if last != nil && !slices.Equal(last.excluded, excluded) {
		last = nil
	}
	now := time.Now
	if c.now != nil {
		now = c.now
	}
	readDir := os.ReadDir
	if c.readDir != nil {
		readDir = c.readDir
	}
	next := &listing{excluded: slices.Clone(excluded), folders: map[string]listedFolder{}}
	var b strings.Builder
	for _, folder := range cut.folders() {
		// Stamped before it is listed: a change while it is read moves
		// a time, so it shows as a change next time.
		fstamp, settled := stampFolder(folder, now())
		if settled {
			if was, ok := last.folder(folder); ok && was.stamp == fstamp {
				next.folders[folder] = was
				grants = append(grants, was.grants...)
				b.WriteString(fstamp)
				continue
			}
		}
		listed := cut.entries(folder, readDir)
		grants = append(grants, listed...)
		if settled {
			next.folders[folder] = listedFolder{stamp: fstamp, grants: listed}
			b.WriteString(fstamp)
			continue
		}
		b.WriteString(folder + "{")
		writeEntries(&b, folder, listed)
		b.WriteString("};")
	}
	slices.Sort(grants)
	c.mu.Lock()
	c.listing = next
	c.mu.Unlock()
	return grants, b.String()
}

// folder is what l holds of folder; l may be nil.
func (l *listing) folder(folder string) (listedFolder, bool) {
	if l == nil {
		return listedFolder{}, false
	}
	f, ok := l.folders[folder]
	return f, ok
}

// racyWindow is how recent a folder's change may be for its stamp to be
// trusted: filesystems keep times at a coarse tick (jiffies on Linux),
// so two changes within one tick leave the same times.
const racyWindow = 2 * time.Second

// stampFolder names folder's identity and times; settled is false when it
// changed within racyWindow of now.
func stampFolder(folder string, now time.Time) (stamp string, settled bool) {
	var st unix.Stat_t
	if err := unix.Lstat(folder, &st); err != nil {
		return folder + ":-;", true
	}
	changed := max(st.Mtim.Nano(), st.Ctim.Nano())
	if now.UnixNano()-changed < int64(racyWindow) {
		return "", false
	}
	return fmt.Sprintf("%s:%x:%x:%d.%d:%d.%d;", folder, st.Dev, st.Ino, st.Mtim.Sec, st.Mtim.Nsec, st.Ctim.Sec, st.Ctim.Nsec), true
}

// forCommand returns a ruleset for rules, for one command: a duplicate
// the caller (proc) closes once the command has started. It is built
// again only when the rules' key (rulesetKey) changed.
func (c *rulesetCache) forCommand(rules fsRules) (*os.File, error) {
	key, err := rulesetKey(rules)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.current == nil || c.key != key {
		fd, err := rules.ruleset()
		if err != nil {
			return nil, err
		}
		if c.current != nil {
			_ = c.current.Close() // duplicates handed out stay valid
		}
		c.current, c.key = os.NewFile(uintptr(fd), "landlock-ruleset"), key
	}
	dup, err := unix.FcntlInt(c.current.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("duplicate the Landlock ruleset: %w", err)
	}
	return os.NewFile(uintptr(dup), "landlock-ruleset"), nil
}

// rulesetKey names rules and the files their paths name now.
func rulesetKey(rules fsRules) (string, error) {
	encoded, err := json.Marshal(rules)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.Write(encoded)
	groups := [][]string{rules.List, rules.Read, rules.Write, rules.Devices}
	if rules.readStamp != "" {
		// The stamp names the read grants' files (readGrants).
		b.WriteString(" read " + rules.readStamp)
		groups = [][]string{rules.List, rules.Write, rules.Devices}
	}
	for _, group := range groups {
		writeFiles(&b, group)
	}
	return b.String(), nil
}

// writeEntries is writeFiles for entries of folder, each looked up in
// the folder opened once rather than from "/" again: a busy folder has
// hundreds.
func writeEntries(b *strings.Builder, folder string, entries []string) {
	dir, err := unix.Open(folder, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		writeFiles(b, entries)
		return
	}
	defer unix.Close(dir)
	for _, path := range entries {
		var st unix.Stat_t
		if err := unix.Fstatat(dir, filepath.Base(path), &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			b.WriteString(" -")
			continue
		}
		writeFile(b, &st)
	}
}

// writeFiles names the file each path names now.
func writeFiles(b *strings.Builder, paths []string) {
	for _, path := range paths {
		var st unix.Stat_t
		if err := unix.Lstat(path, &st); err != nil {
			b.WriteString(" -")
			continue
		}
		writeFile(b, &st)
	}
}

func writeFile(b *strings.Builder, st *unix.Stat_t) {
	b.WriteString(" " + strconv.FormatUint(st.Dev, 16) + ":" + strconv.FormatUint(st.Ino, 16))
}
