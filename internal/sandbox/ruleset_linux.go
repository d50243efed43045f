package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
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
}

// listing is what carving "/" around a set of secrets gave, and the
// folders it listed as they were just before.
type listing struct {
	excluded []string
	grants   []string
	folders  []string
	stamp    string
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
// It also returns a stamp of the folders it listed. Listing them, and
// stat'ing each of the hundreds of entries for the ruleset's key
// (rulesetKey), was most of what preparing a command cost (issue 27).
// Both hold while those folders are unchanged: an entry is added,
// removed, renamed or replaced only by a change to its folder, which
// moves the folder's modification and change times. So the last grants
// are reused while every folder keeps its identity and times, and the
// stamp stands for the entries' files in the key. The stamp is "" (the
// grants are carved afresh, every entry stat'ed) when a folder changed
// so recently that a second change could share its timestamp.
func (c *rulesetCache) readGrants(excluded []string) (grants []string, stamp string) {
	c.mu.Lock()
	last := c.listing
	c.mu.Unlock()
	now := time.Now
	if c.now != nil {
		now = c.now
	}
	if last != nil && slices.Equal(last.excluded, excluded) {
		if stamp, ok := stampFolders(last.folders, now()); ok && stamp == last.stamp {
			return last.grants, stamp
		}
	}
	_, folders := carveListing("/", excluded)
	// Stamped before they are listed again: a change while they are read
	// moves a time, so it shows as a change next time.
	stamp, ok := stampFolders(folders, now())
	grants, listed := carveListing("/", excluded)
	if !ok || !slices.Equal(listed, folders) {
		return grants, ""
	}
	c.mu.Lock()
	c.listing = &listing{excluded: slices.Clone(excluded), grants: grants, folders: folders, stamp: stamp}
	c.mu.Unlock()
	return grants, stamp
}

// racyWindow is how recent a folder's change may be for its stamp to be
// trusted: filesystems keep times at a coarse tick (jiffies on Linux),
// so two changes within one tick leave the same times.
const racyWindow = 2 * time.Second

// stampFolders names each folder's identity and times; ok is false when
// one changed within racyWindow of now.
func stampFolders(folders []string, now time.Time) (stamp string, ok bool) {
	var b strings.Builder
	for _, f := range folders {
		var st unix.Stat_t
		if err := unix.Lstat(f, &st); err != nil {
			b.WriteString("-;")
			continue
		}
		changed := max(st.Mtim.Nano(), st.Ctim.Nano())
		if now.UnixNano()-changed < int64(racyWindow) {
			return "", false
		}
		fmt.Fprintf(&b, "%x:%x:%d.%d:%d.%d;", st.Dev, st.Ino, st.Mtim.Sec, st.Mtim.Nsec, st.Ctim.Sec, st.Ctim.Nsec)
	}
	return b.String(), true
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
		// The read grants are entries of folders unchanged since they
		// were listed (readGrants): the stamp names their files.
		b.WriteString(" read " + rules.readStamp)
		groups = [][]string{rules.List, rules.Write, rules.Devices}
	}
	for _, group := range groups {
		for _, path := range group {
			var st unix.Stat_t
			if err := unix.Lstat(path, &st); err != nil {
				b.WriteString(" -")
				continue
			}
			b.WriteString(" " + strconv.FormatUint(st.Dev, 16) + ":" + strconv.FormatUint(st.Ino, 16))
		}
	}
	return b.String(), nil
}
