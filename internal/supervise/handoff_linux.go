package supervise

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// The control socket between shiro and a supervisor that takes its command
// by handoff (Launch.Command) is a SOCK_SEQPACKET pair, so every message
// arrives whole. shiro sends the command (the Handoff as JSON, with the
// command's stdin, stdout and stderr and then Launch.CommandFiles as
// SCM_RIGHTS); the supervisor answers handoffStale when what it prepared
// ahead no longer holds (Supervision's Check), after which it exits.
// Otherwise:
//
//   - a supervisor for one command answers handoffTaken, runs it and
//     exits with its status; shiro closes its end at once, and signals
//     the supervisor to stop the command;
//   - a supervisor kept for the session (Handoff.Keep) answers
//     "taken <pid>" once the command runs, or "cannot <code> <why>" when
//     it could not start it, and "end <code> <signal>" once the command
//     and everything it started are gone; then it waits for the next
//     command. shiro sends handoffStop to have it stop the command.
//
// Closing shiro's end tells a supervisor waiting for a command to exit.

// handoffVar names, in the supervisor's environment, the file descriptor
// of its end of the control socket.
const handoffVar = "SHIRO_PROC_HANDOFF_FD"

const (
	handoffTaken  = "taken"
	handoffStale  = "stale"
	handoffCannot = "cannot"
	handoffEnd    = "end"
	handoffStop   = "stop"
	// maxHandoff bounds the command's message (its environment, mostly).
	maxHandoff = 1 << 20
	// maxCommandFiles bounds the descriptors handed with a command beside
	// its stdio.
	maxCommandFiles = 4
)

var (
	// errHandoffStale: the supervisor found what it had prepared out of
	// date and did not take the command.
	errHandoffStale = errors.New("the supervisor's preparation is out of date")
	// errHandoffClosed: shiro closed the control socket (or is gone).
	errHandoffClosed = errors.New("the control socket was closed")
)

// HandoffFile is the control socket this process was started with as a
// supervisor that takes its command by handoff, or nil. It is for
// Supervision.Handoff.
func HandoffFile() *os.File {
	fd, err := strconv.Atoi(os.Getenv(handoffVar))
	if err != nil || fd < 3 {
		return nil
	}
	return os.NewFile(uintptr(fd), "handoff")
}

// sendCommand sends h with the descriptors (stdio, then the command's
// files) and returns the supervisor's answer.
func sendCommand(ctrl int, h *Handoff, fds []int) (string, error) {
	msg, err := json.Marshal(h)
	if err != nil {
		return "", fmt.Errorf("encode the command: %w", err)
	}
	if len(msg) > maxHandoff {
		return "", fmt.Errorf("the command and its environment take %d bytes, more than the %d a supervisor accepts", len(msg), maxHandoff)
	}
	rights := unix.UnixRights(fds...)
	if err := retryEINTR(func() error { return unix.Sendmsg(ctrl, msg, rights, nil, unix.MSG_NOSIGNAL) }); err != nil {
		return "", fmt.Errorf("hand the command to its supervisor: %w", err)
	}
	word, err := readWord(ctrl)
	if err == nil && word == handoffStale {
		err = errHandoffStale
	}
	return word, err
}

// readWord reads the supervisor's next message.
func readWord(ctrl int) (string, error) {
	var buf [512]byte
	var n int
	err := retryEINTR(func() (err error) { n, err = unix.Read(ctrl, buf[:]); return err })
	switch {
	case err != nil:
		return "", fmt.Errorf("read the supervisor's answer: %w", err)
	case n == 0:
		return "", errors.New("the supervisor exited")
	}
	return string(buf[:n]), nil
}

// control is one message from shiro: a command with its descriptors, a
// stop (cmd nil), or the end of the socket or a failure to read it (err).
type control struct {
	cmd   *Handoff
	stdio [3]int
	files []int
	err   error
}

// readControl passes every message on ctrl to out until the socket ends
// or fails. A supervisor reads its socket from this goroutine alone.
func readControl(ctrl *os.File, out chan<- control) {
	buf := make([]byte, maxHandoff+1)
	oob := make([]byte, unix.CmsgSpace((3+maxCommandFiles)*4))
	fd := int(ctrl.Fd())
	for {
		m := receive(fd, buf, oob)
		out <- m
		if m.err != nil {
			return
		}
	}
}

// receive reads one message; descriptors come close-on-exec.
func receive(fd int, buf, oob []byte) control {
	var n, oobn int
	err := retryEINTR(func() (err error) {
		n, oobn, _, _, err = unix.Recvmsg(fd, buf, oob, unix.MSG_CMSG_CLOEXEC)
		return err
	})
	if err != nil {
		return control{err: fmt.Errorf("receive the command: %w", err)}
	}
	if n == 0 && oobn == 0 {
		return control{err: errHandoffClosed}
	}
	fds, err := parseRights(oob[:oobn])
	if err != nil {
		return control{err: err}
	}
	if string(buf[:n]) == handoffStop && len(fds) == 0 {
		return control{}
	}
	var h Handoff
	if err := json.Unmarshal(buf[:n], &h); err != nil || len(h.Argv) == 0 || len(fds) < 3 {
		closeFDs(fds)
		return control{err: fmt.Errorf("unreadable command (%d bytes, %d descriptors): %v", n, len(fds), err)}
	}
	return control{cmd: &h, stdio: [3]int{fds[0], fds[1], fds[2]}, files: fds[3:]}
}

// parseRights takes the descriptors out of a control message.
func parseRights(oob []byte) ([]int, error) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, fmt.Errorf("read the command's descriptors: %w", err)
	}
	var fds []int
	for _, m := range msgs {
		got, err := unix.ParseUnixRights(&m)
		if err != nil {
			closeFDs(fds)
			return nil, fmt.Errorf("read the command's descriptors: %w", err)
		}
		fds = append(fds, got...)
	}
	return fds, nil
}

// answer sends shiro one message.
func answer(ctrl *os.File, word string) error {
	_, err := ctrl.Write([]byte(word))
	return err
}

func closeFDs(fds []int) {
	for _, fd := range fds {
		if fd >= 0 {
			_ = unix.Close(fd)
		}
	}
}

func retryEINTR(call func() error) error {
	for {
		if err := call(); !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}
