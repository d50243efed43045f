package supervise

// Limits are what a supervisor holds its command to, and only its
// command: the supervisor itself (and shiro) stay outside them, so that a
// command that runs into one fails on its own while they carry on.
//
// What applies depends on who runs shiro and what the kernel offers (see
// docs/sandbox.md, "Resources"):
//
//   - Tasks bounds the processes and threads the command may add. For an
//     ordinary user it is RLIMIT_NPROC, set to the tasks the kernel counts
//     against the command when it starts plus Tasks, and never above what
//     a pids cgroup shiro runs under still has room for (less a reserve
//     for shiro). The kernel ignores RLIMIT_NPROC for root, so for root
//     it is a pids cgroup of the command's own (PidsCgroup).
//   - MemoryBytes is a memory cgroup of the command's own
//     (MemoryCgroup); there is no rlimit that bounds memory without
//     breaking programs that reserve address space (RLIMIT_AS fails a JVM
//     or V8 at start), so without the cgroup memory is not bounded.
//   - FileBytes is RLIMIT_FSIZE: no file the command writes grows larger.
//
// The zero value limits nothing.
type Limits struct {
	// Tasks is how many processes and threads the command may add; 0
	// bounds nothing.
	Tasks int `json:"tasks,omitempty"`
	// FileBytes caps the size of each file the command writes; 0 caps
	// nothing.
	FileBytes int64 `json:"fileBytes,omitempty"`
	// MemoryBytes caps the memory of the command and everything it
	// starts, when MemoryCgroup is set; 0 caps nothing.
	MemoryBytes int64 `json:"memoryBytes,omitempty"`
	// PidsCgroup and MemoryCgroup are cgroup v1 folders (the pids and the
	// memory hierarchy's, shiro's own cgroup there) under which the
	// supervisor makes one cgroup for its command, and removes it when
	// the command is over. Empty: none is made. See CgroupsFor.
	PidsCgroup   string `json:"pidsCgroup,omitempty"`
	MemoryCgroup string `json:"memoryCgroup,omitempty"`
}

// taskReserve is how many tasks a command leaves free under a pids limit
// it shares with shiro: room for shiro's own threads and the next
// command's supervisor, so that shiro can go on when a command has used
// up all it may.
const taskReserve = 64
