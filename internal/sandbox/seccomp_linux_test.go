package sandbox

import (
	"errors"
	"runtime"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// onConfinedThread runs f on an OS thread of its own with the network
// filter installed; the thread is thrown away afterwards (its goroutine
// exits locked), so the rest of the test binary is untouched.
func onConfinedThread(t *testing.T, filter seccompFilter, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			done <- err
			return
		}
		if err := installNetworkFilter(filter); err != nil {
			done <- err
			return
		}
		done <- f()
	}()
	return <-done
}

func socketErr(domain, typ, proto int) error {
	fd, err := unix.Socket(domain, typ, proto)
	if err == nil {
		_ = unix.Close(fd)
	}
	return err
}

func TestNetworkFilterRefusesWhatLandlockCannotSee(t *testing.T) {
	if !seccompAvailable() {
		needSandbox(t, "no seccomp filters here")
	}
	type probe struct {
		name               string
		domain, typ, proto int
		streamOnly, noInet error
	}
	for _, p := range []probe{
		{"tcp4", unix.AF_INET, unix.SOCK_STREAM, 0, nil, unix.EACCES},
		{"tcp6 nonblocking", unix.AF_INET6, unix.SOCK_STREAM | unix.SOCK_NONBLOCK | unix.SOCK_CLOEXEC, unix.IPPROTO_TCP, nil, unix.EACCES},
		{"udp4", unix.AF_INET, unix.SOCK_DGRAM, 0, unix.EACCES, unix.EACCES},
		{"udp6", unix.AF_INET6, unix.SOCK_DGRAM | unix.SOCK_CLOEXEC, unix.IPPROTO_UDP, unix.EACCES, unix.EACCES},
		{"mptcp", unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_MPTCP, unix.EACCES, unix.EACCES},
		{"sctp seqpacket", unix.AF_INET, unix.SOCK_SEQPACKET, 0, unix.EACCES, unix.EACCES},
		{"unix stream", unix.AF_UNIX, unix.SOCK_STREAM, 0, nil, nil},
		{"unix datagram", unix.AF_UNIX, unix.SOCK_DGRAM, 0, nil, nil},
	} {
		for _, mode := range []seccompMode{seccompStreamOnly, seccompNoInet} {
			want := p.streamOnly
			if mode == seccompNoInet {
				want = p.noInet
			}
			err := onConfinedThread(t, seccompFilter{Inet: mode}, func() error { return socketErr(p.domain, p.typ, p.proto) })
			// A protocol this kernel lacks fails on its own when allowed.
			if want == nil && err != nil && !errors.Is(err, unix.EACCES) {
				continue
			}
			if !errors.Is(err, want) && !(want == nil && err == nil) {
				t.Errorf("%s under %s: %v, want %v", p.name, mode, err, want)
			}
		}
	}
	err := onConfinedThread(t, seccompFilter{Inet: seccompStreamOnly}, func() error {
		var params [120]byte // struct io_uring_params
		_, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params)), 0)
		if errno != 0 {
			return errno
		}
		return nil
	})
	if !errors.Is(err, unix.ENOSYS) {
		t.Errorf("io_uring_setup under the filter: %v, want ENOSYS", err)
	}
	// The filter stayed on its thread.
	if err := socketErr(unix.AF_INET, unix.SOCK_DGRAM, 0); err != nil {
		t.Errorf("the test's own threads were filtered: %v", err)
	}
}

func TestUnixFilterRefusesUnixSocketsButNotPairs(t *testing.T) {
	if !seccompAvailable() {
		t.Skip("no seccomp filters here")
	}
	for _, filter := range []seccompFilter{{NoUnix: true}, {NoUnix: true, Inet: seccompStreamOnly}, {NoUnix: true, Inet: seccompNoInet}} {
		for _, typ := range []int{unix.SOCK_STREAM, unix.SOCK_DGRAM | unix.SOCK_CLOEXEC, unix.SOCK_SEQPACKET | unix.SOCK_NONBLOCK} {
			if err := onConfinedThread(t, filter, func() error { return socketErr(unix.AF_UNIX, typ, 0) }); !errors.Is(err, unix.EPERM) {
				t.Errorf("AF_UNIX type %#x under %+v: %v, want EPERM", typ, filter, err)
			}
		}
		err := onConfinedThread(t, filter, func() error {
			fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
			if err == nil {
				_ = unix.Close(fds[0])
				_ = unix.Close(fds[1])
			}
			return err
		})
		if err != nil {
			t.Errorf("socketpair under %+v: %v", filter, err)
		}
	}
	// With the network on, only Unix sockets are refused.
	err := onConfinedThread(t, seccompFilter{NoUnix: true}, func() error { return socketErr(unix.AF_INET, unix.SOCK_DGRAM, 0) })
	if err != nil {
		t.Errorf("a UDP socket with only Unix sockets refused: %v", err)
	}
	// Without NoUnix, a network filter leaves them alone.
	err = onConfinedThread(t, seccompFilter{Inet: seccompNoInet}, func() error { return socketErr(unix.AF_UNIX, unix.SOCK_STREAM, 0) })
	if err != nil {
		t.Errorf("AF_UNIX under the network filter alone: %v", err)
	}
}
