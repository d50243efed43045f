package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

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
}

// forCommand returns a ruleset for rules, for one command: a duplicate
// the caller (proc) closes once the command has started; and its key
// (rulesetKey), which tells it apart from a ruleset for other files.
func (c *rulesetCache) forCommand(rules fsRules) (*os.File, string, error) {
	key, err := rulesetKey(rules)
	if err != nil {
		return nil, "", err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.current == nil || c.key != key {
		fd, err := rules.ruleset()
		if err != nil {
			return nil, "", err
		}
		if c.current != nil {
			_ = c.current.Close() // duplicates handed out stay valid
		}
		c.current, c.key = os.NewFile(uintptr(fd), "landlock-ruleset"), key
	}
	dup, err := unix.FcntlInt(c.current.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, "", fmt.Errorf("duplicate the Landlock ruleset: %w", err)
	}
	return os.NewFile(uintptr(dup), "landlock-ruleset"), key, nil
}

// rulesetKey names rules and the files their paths name now.
func rulesetKey(rules fsRules) (string, error) {
	encoded, err := json.Marshal(rules)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.Write(encoded)
	for _, group := range [][]string{rules.List, rules.Read, rules.Write, rules.Devices} {
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
