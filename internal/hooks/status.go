package hooks

import (
	"fmt"
	"time"

	"github.com/shiro-neko/shiro/internal/problem"
)

// Status is one hook folder as it is on disk now, against its approval:
// what `shiro hooks list` prints and what an approval prompt shows.
type Status struct {
	// Hook is the folder as found now (Digest is the current one). For an
	// invalid folder only Name, Dir and Origin are sure to be set.
	Hook
	State State
	// Manifest is manifest.json as hashed, for review; empty if absent.
	Manifest string
	// Approved is the approval on file, if any (for a changed hook, the
	// old one).
	Approved *Record
	// Err says what is wrong (StateInvalid), or why the approvals could
	// not be read.
	Err string
}

// Status re-reads every hook folder and reports its state, in name order.
func (r *Runner) Status() []Status {
	out := make([]Status, 0, len(r.set.entries))
	for _, e := range r.set.entries {
		fresh := e.inspect()
		s := Status{Hook: fresh.hook, Manifest: string(fresh.manifest), State: StatePending}
		rec, ok, err := r.lookup(fresh.hook.Dir)
		switch {
		case err != nil:
			s.Err = err.Error()
		case e.cmd != nil && e.hook.Origin == OriginUser:
			s.State = StateApproved // the person's own settings
		case ok:
			s.Approved = &rec
			s.State = StateChanged
			if rec.Digest == fresh.hook.Digest {
				s.State = StateApproved
			}
		}
		if fresh.err != nil {
			s.State, s.Err = StateInvalid, fresh.err.Error()
		}
		out = append(out, s)
	}
	return out
}

// Unlisted returns the problems of the hooks folders that Status does not
// show, as they were found when the hooks were loaded (see Set.Unlisted):
// `/hooks` and `shiro hooks list` report them beside the table, so a
// stray file is never answered with "no hooks found".
func (r *Runner) Unlisted() []problem.Problem { return r.set.Unlisted() }

// Approve records the hook's current bundle as approved. Use it when the
// person reviewed the files on disk themselves (`shiro hooks approve`).
func (r *Runner) Approve(name string) error { return r.approve(name, "") }

// ApproveDigest approves the hook only if its bundle still has digest, the
// one the person was shown: what was reviewed is what gets approved, even
// if the folder changes while the prompt is open.
func (r *Runner) ApproveDigest(name, digest string) error { return r.approve(name, digest) }

func (r *Runner) approve(name, reviewed string) error {
	e, err := r.find(name)
	if err != nil {
		return err
	}
	fresh := e.inspect()
	if fresh.err != nil {
		return fmt.Errorf("hook %q cannot be approved: %s", name, fresh.err.Error())
	}
	if reviewed != "" && fresh.hook.Digest != reviewed {
		return fmt.Errorf("hook %q changed while it was being reviewed (sha256 %s now, %s reviewed); review it again",
			name, shortDigest(fresh.hook.Digest), shortDigest(reviewed))
	}
	manifest, err := approvedManifest(fresh)
	if err != nil {
		return fmt.Errorf("hook %q cannot be approved: %w", name, err)
	}
	old, hadOld, _ := r.trust.Lookup(fresh.hook.Dir)
	err = r.trust.Approve(fresh.hook.Dir, Record{
		Name:       name,
		Digest:     fresh.hook.Digest,
		ApprovedAt: time.Now().UTC().Truncate(time.Second),
		Manifest:   manifest,
	})
	if err != nil {
		return fmt.Errorf("approving hook %q: %w", name, err)
	}
	if hadOld && old.Digest != fresh.hook.Digest {
		r.cache.remove(old.Digest)
	}
	return nil
}

// approvedManifest is what an approval records of the hook: its manifest,
// or for a Claude Code hook, its name and event (the matcher is in the
// digest).
func approvedManifest(e entry) (Manifest, error) {
	if e.cmd != nil {
		return Manifest{Name: e.hook.Name, Hook: e.hook.Kind, Tools: []string{"*"}}, nil
	}
	return ParseManifest(e.manifest)
}

// Revoke withdraws the hook's approval, so it blocks (pre_tool) or is
// skipped (after_turn) until approved again. Revoking a hook that has no
// approval does nothing.
func (r *Runner) Revoke(name string) error {
	e, err := r.find(name)
	if err != nil {
		return err
	}
	old, hadOld, _ := r.trust.Lookup(e.hook.Dir)
	if _, err := r.trust.Revoke(e.hook.Dir); err != nil {
		return fmt.Errorf("revoking hook %q: %w", name, err)
	}
	if hadOld {
		r.cache.remove(old.Digest)
	}
	return nil
}

func (r *Runner) find(name string) (entry, error) {
	if r.trust == nil {
		return entry{}, errNoTrust
	}
	for _, e := range r.set.entries {
		if e.hook.Name == name {
			return e, nil
		}
	}
	return entry{}, fmt.Errorf("no hook is named %q; run `shiro hooks list` to see them", name)
}
