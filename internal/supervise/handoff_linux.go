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
// arrives whole. Its life is three messages: the supervisor says
// handoffReady once it is prepared and confined and waits; shiro sends the
// command (the Handoff as JSON, with the command's stdin, stdout and
// stderr as SCM_RIGHTS); the supervisor answers with one word,
// handoffTaken, or handoffStale when what it prepared ahead no longer
// holds (Supervision's Check), after which it exits. Closing shiro's end
// tells a waiting supervisor to exit.

// handoffVar names, in the supervisor's environment, the file descriptor
// of its end of the control socket.
const handoffVar = "SHIRO_PROC_HANDOFF_FD"

const (
	handoffReady = "ready"
	handoffTaken = "taken"
	handoffStale = "stale"
	// maxHandoff bounds the command's message (its environment, mostly).
	maxHandoff = 1 << 20
)

var (
	// errHandoffStale: the supervisor found what it had prepared out of
	// date and did not take the command.
	errHandoffStale = errors.New("the supervisor's preparation is out of date")
	// errHandoffClosed: shiro closed the control socket (or is gone)
	// before sending a command.
	errHandoffClosed = errors.New("the control socket was closed before a command came")
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

// sendCommand sends h with the three stdio descriptors and waits for the
// supervisor's answer.
func sendCommand(ctrl int, h *Handoff, stdio [3]int) error {
	msg, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("encode the command: %w", err)
	}
	if len(msg) > maxHandoff {
		return fmt.Errorf("the command and its environment take %d bytes, more than the %d a supervisor accepts", len(msg), maxHandoff)
	}
	rights := unix.UnixRights(stdio[:]...)
	if err := retryEINTR(func() error { return unix.Sendmsg(ctrl, msg, rights, nil, unix.MSG_NOSIGNAL) }); err != nil {
		return fmt.Errorf("hand the command to its supervisor: %w", err)
	}
	for {
		word, err := readWord(ctrl)
		switch {
		case err != nil:
			return err
		case word == handoffReady: // a supervisor started just now
			continue
		case word == handoffTaken:
			return nil
		case word == handoffStale:
			return errHandoffStale
		default:
			return fmt.Errorf("the supervisor answered %q", word)
		}
	}
}

// awaitReady waits for a supervisor just started to say it is waiting.
func awaitReady(ctrl int) error {
	word, err := readWord(ctrl)
	if err == nil && word != handoffReady {
		err = fmt.Errorf("the supervisor said %q instead of %q", word, handoffReady)
	}
	return err
}

// readWord reads the supervisor's next message.
func readWord(ctrl int) (string, error) {
	var buf [16]byte
	var n int
	err := retryEINTR(func() (err error) { n, err = unix.Read(ctrl, buf[:]); return err })
	switch {
	case err != nil:
		return "", fmt.Errorf("read the supervisor's answer: %w", err)
	case n == 0:
		return "", errors.New("the supervisor exited before taking the command")
	}
	return string(buf[:n]), nil
}

// receiveCommand waits for the command on ctrl; the descriptors come
// close-on-exec.
func receiveCommand(ctrl *os.File) (*Handoff, [3]int, error) {
	none := [3]int{-1, -1, -1}
	buf := make([]byte, maxHandoff+1)
	oob := make([]byte, unix.CmsgSpace(3*4))
	var n, oobn int
	// Fd leaves the socket blocking: the call waits on this thread, which
	// is the one that will start the command.
	fd := int(ctrl.Fd())
	err := retryEINTR(func() (err error) {
		n, oobn, _, _, err = unix.Recvmsg(fd, buf, oob, unix.MSG_CMSG_CLOEXEC)
		return err
	})
	if err != nil {
		return nil, none, fmt.Errorf("receive the command: %w", err)
	}
	if n == 0 && oobn == 0 {
		return nil, none, errHandoffClosed
	}
	fds, err := parseRights(oob[:oobn])
	if err != nil {
		return nil, none, err
	}
	var h Handoff
	if err := json.Unmarshal(buf[:n], &h); err != nil || len(h.Argv) == 0 {
		closeFDs(fds[:])
		return nil, none, fmt.Errorf("unreadable command (%d bytes): %v", n, err)
	}
	return &h, fds, nil
}

// parseRights takes exactly three descriptors out of a control message.
func parseRights(oob []byte) ([3]int, error) {
	none := [3]int{-1, -1, -1}
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return none, fmt.Errorf("read the command's descriptors: %w", err)
	}
	var fds []int
	for _, m := range msgs {
		got, err := unix.ParseUnixRights(&m)
		if err != nil {
			closeFDs(fds)
			return none, fmt.Errorf("read the command's descriptors: %w", err)
		}
		fds = append(fds, got...)
	}
	if len(fds) != 3 {
		closeFDs(fds)
		return none, fmt.Errorf("the command came with %d descriptors, not stdin, stdout and stderr", len(fds))
	}
	return [3]int{fds[0], fds[1], fds[2]}, nil
}

// answer tells shiro whether the command was taken.
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
