package supervise

import (
	"os"
	"time"
)

// Launch is how to start a command under a supervisor that takes it by
// handoff: the proc.Starter a sandbox puts in the Exec it launches. The
// supervisor program (Argv, Dir, Env, Files) does not depend on the
// command, so one started earlier, waiting in Pool, can take it.
type Launch struct {
	// Argv, Dir and Env start the supervisor, which must call Supervise.
	Argv []string
	Dir  string
	Env  []string
	// Files are passed to the supervisor as file descriptors 3, 4, …;
	// the Launch owns them and Close closes them.
	Files []*os.File
	// PrivateMounts starts the supervisor in a user and a mount namespace
	// of its own (Linux), with shiro's user and group mapped to
	// themselves, so that it can bind-mount paths read-only for the
	// command without privileges. It holds the capabilities to mount
	// (CAP_SYS_ADMIN) and to drop capabilities (CAP_SETPCAP) in that
	// namespace, whoever runs shiro: it must drop them before it starts
	// anything it does not trust.
	PrivateMounts bool
	// Command is what the supervisor runs, received over its control
	// socket with the command's stdin, stdout and stderr. Without one the
	// program is not a supervisor and gets the command's stdin, stdout
	// and stderr itself (the sandbox's probe, which runs nothing).
	Command *Handoff
	// CommandFiles are handed to the supervisor with the command, for
	// Supervision.Confine (the sandbox's Landlock ruleset): what may
	// differ from one command to the next under the same supervisor. The
	// Launch owns them and Close closes them.
	CommandFiles []*os.File
	// Pool, when set, keeps the supervisor for the session: it runs this
	// command and then waits for the next with the same PoolKey (for a
	// Spec with the same NewSession; see keptGroup). Launches with the
	// same key must start interchangeable supervisors: the launcher puts
	// everything that tells them apart, Files' contents included, into
	// the key; CommandFiles are not part of it.
	Pool    *Pool
	PoolKey string
}

// Handoff is the command a supervisor receives over its control socket.
type Handoff struct {
	Argv []string `json:"argv"`
	// Path is the program's file when Argv[0] is only its name
	// (proc.Spec.Path); empty, Argv[0] is the file.
	Path  string        `json:"path,omitempty"`
	Dir   string        `json:"dir"`
	Env   []string      `json:"env"`
	Grace time.Duration `json:"grace"`
	// Keep says that the supervisor is kept for the session: it starts
	// the command as the leader of a group of its own (a session, with
	// NewSession), reports its end over the control socket and waits for
	// the next. Without it the command runs in the supervisor's group and
	// the supervisor exits with its status.
	Keep       bool `json:"keep,omitempty"`
	NewSession bool `json:"newSession,omitempty"`
}

// Close closes the Launch's files: the supervisor has its own copies once
// it has started, or has the command.
func (l *Launch) Close() error {
	closeFiles(l.Files...)
	closeFiles(l.CommandFiles...)
	return nil
}

func closeFiles(files ...*os.File) {
	for _, f := range files {
		if f != nil {
			_ = f.Close()
		}
	}
}
