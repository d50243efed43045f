package proc

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// ReapReport is what Reap did with each journal entry.
type ReapReport struct {
	// Killed were left by a shiro that is gone and verified as its own
	// before their processes were killed.
	Killed []JournalEntry
	// Gone were left by a shiro that is gone, but nothing of them runs any
	// more, or nothing that runs can be verified as theirs (a recycled pid
	// is never killed). They are dropped from the journal.
	Gone []JournalEntry
	// Kept belong to a shiro that is still running and stay in the journal.
	Kept []JournalEntry
}

// Reap stops the background jobs that a shiro which is no longer running
// left behind, and removes them from the journal at journalPath. Run it at
// start-up, before this process records any job. A process is killed only
// if it is verifiably the one shiro started: the group's leader by its
// start time and boot, any other process by the job's token in its
// environment. A journal that cannot be parsed is moved aside to
// journalPath + ".corrupt", and the error says so.
func Reap(journalPath string) (ReapReport, error) {
	var report ReapReport
	self, _ := IdentityOf(os.Getpid())
	err := updateJournal(journalPath, func(entries []JournalEntry) []JournalEntry {
		var keep, stale []JournalEntry
		for _, e := range entries {
			if e.Owner == self || ownerAlive(e.Owner) {
				keep = append(keep, e)
				continue
			}
			stale = append(stale, e)
		}
		report.Kept = keep
		report.Killed, report.Gone = killStale(stale)
		return keep
	})
	var bad *JournalError
	if errors.As(err, &bad) {
		aside := journalPath + ".corrupt"
		if rerr := os.Rename(journalPath, aside); rerr != nil {
			return report, fmt.Errorf("%w; moving it aside also failed: %v", err, rerr)
		}
		return report, fmt.Errorf("background journal %s was not valid (%v); moved it to %s", journalPath, bad.Err, aside)
	}
	return report, err
}

// killStale kills whatever of the stale entries still runs and is theirs.
func killStale(stale []JournalEntry) (killed, gone []JournalEntry) {
	tokens := make([]string, 0, len(stale))
	for _, e := range stale {
		tokens = append(tokens, e.Token)
	}
	carriers := processesCarrying(tokens)
	for _, e := range stale {
		hit := false
		if leaderIsOurs(e) {
			hit = signalGroup(e.PGID, syscall.SIGKILL) == nil
		}
		for pid, tok := range carriers {
			if e.Token != "" && tok == e.Token && signalProcess(pid, syscall.SIGKILL) == nil {
				hit = true
			}
		}
		if hit {
			killed = append(killed, e)
		} else {
			gone = append(gone, e)
		}
	}
	return killed, gone
}
