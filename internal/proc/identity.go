package proc

// Identity names one process for later verification: a pid is reused once
// its process is gone, but (pid, start time, boot) never is.
type Identity struct {
	PID int `json:"pid"`
	// StartTicks is the start time in clock ticks after boot (Linux
	// /proc/<pid>/stat field 22); zero where it cannot be read.
	StartTicks uint64 `json:"startTicks,omitempty"`
	BootID     string `json:"bootId,omitempty"`
}
