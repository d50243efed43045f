package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Landlock filters TCP connect (ABI 4) but not UDP before ABI 10, nor
// other socket types, nor sockets made through io_uring, nor, before ABI 9,
// connections to pathname Unix sockets. A seccomp filter closes those
// holes on the command's thread before it starts, so no process of the
// command can:
//
//   - with the network off, open an IPv4 or IPv6 socket other than a plain
//     TCP stream (UDP, DNS over UDP included, raw, SCTP, MPTCP, which
//     Landlock's TCP rules do not see), and, where Landlock has no TCP
//     rules, any IPv4 or IPv6 socket at all;
//   - where Landlock cannot filter Unix socket paths (before ABI 9), open
//     an AF_UNIX socket: connect(2) to a path cannot be inspected by a
//     filter (the path lies in the command's memory), so the socket is
//     refused before it exists. socketpair(2) stays allowed: an anonymous
//     pair reaches nothing outside the command;
//   - set up io_uring, whose socket and connect operations bypass the
//     filter;
//   - make system calls of another architecture (32-bit x86 programs on
//     x86-64, 32-bit ARM on arm64) that name sockets: the multiplexed
//     socketcall(2) cannot be inspected, so it is refused whole.
//
// Denials return EACCES (EPERM for AF_UNIX, ENOSYS for io_uring, so
// programs fall back to plain system calls), which programs report as
// "permission denied" or "operation not permitted".

// seccompMode says what the filter refuses of IPv4 and IPv6.
type seccompMode string

const (
	// seccompStreamOnly allows IPv4/IPv6 TCP streams (Landlock denies
	// their connect) and refuses every other IPv4/IPv6 socket.
	seccompStreamOnly seccompMode = "inet-stream-only"
	// seccompNoInet refuses every IPv4/IPv6 socket.
	seccompNoInet seccompMode = "no-inet"
)

// seccompFilter is what the helper's filter refuses.
type seccompFilter struct {
	// Inet says what is refused of IPv4/IPv6; "" leaves them alone (the
	// network is on).
	Inet seccompMode `json:"inet,omitempty"`
	// NoUnix refuses AF_UNIX sockets.
	NoUnix bool `json:"noUnix,omitempty"`
}

// needed reports whether the filter refuses anything.
func (f seccompFilter) needed() bool { return f.Inet != "" || f.NoUnix }

// seccompAvailable reports whether the kernel takes seccomp filters.
func seccompAvailable() bool {
	if nativeArch == 0 {
		return false
	}
	data, err := os.ReadFile("/proc/self/status")
	return err == nil && strings.Contains(string(data), "\nSeccomp_filters:")
}

// seccompData offsets (struct seccomp_data): the system call number, the
// architecture, then six 64-bit arguments whose low 32 bits come first on
// these little-endian machines.
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16
	offArg1 = 24
	offArg2 = 32
)

const (
	retAllow   = unix.SECCOMP_RET_ALLOW
	retEACCES  = unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)
	retENOSYS  = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
	retEPERM   = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	x32Bit     = 0x40000000 // x32 system calls share x86-64's architecture
	sockMask   = 0xf        // the type bits, without SOCK_NONBLOCK and SOCK_CLOEXEC
	ipprotoTCP = 6
)

// program is a BPF program with symbolic jump targets.
type program struct {
	insns  []bpf.Instruction
	labels map[string]int
	jumps  []jumpFix
}

type jumpFix struct {
	at              int
	onTrue, onFalse string
}

func newProgram() *program { return &program{labels: map[string]int{}} }

func (p *program) label(name string) { p.labels[name] = len(p.insns) }

func (p *program) add(i bpf.Instruction) { p.insns = append(p.insns, i) }

func (p *program) load(off uint32) { p.add(bpf.LoadAbsolute{Off: off, Size: 4}) }

func (p *program) ret(v uint32) { p.add(bpf.RetConstant{Val: v}) }

// jump adds a conditional jump on the accumulator; an empty label means
// the next instruction.
func (p *program) jump(cond bpf.JumpTest, val uint32, onTrue, onFalse string) {
	p.jumps = append(p.jumps, jumpFix{at: len(p.insns), onTrue: onTrue, onFalse: onFalse})
	p.add(bpf.JumpIf{Cond: cond, Val: val})
}

// assemble resolves the jumps (forward only, as BPF requires).
func (p *program) assemble() ([]bpf.RawInstruction, error) {
	for _, j := range p.jumps {
		skip := func(label string) (uint8, error) {
			if label == "" {
				return 0, nil
			}
			to, ok := p.labels[label]
			if !ok || to <= j.at || to-j.at-1 > 255 {
				return 0, fmt.Errorf("seccomp filter: bad jump to %q", label)
			}
			return uint8(to - j.at - 1), nil
		}
		jump := p.insns[j.at].(bpf.JumpIf)
		var err error
		if jump.SkipTrue, err = skip(j.onTrue); err != nil {
			return nil, err
		}
		if jump.SkipFalse, err = skip(j.onFalse); err != nil {
			return nil, err
		}
		p.insns[j.at] = jump
	}
	return bpf.Assemble(p.insns)
}

// networkFilter is the BPF program for f.
func networkFilter(f seccompFilter) ([]bpf.RawInstruction, error) {
	p := newProgram()
	p.load(offArch)
	p.jump(bpf.JumpEqual, nativeArch, "native", "")
	if compatArch != 0 {
		p.jump(bpf.JumpEqual, compatArch, "compat", "")
	}
	p.ret(retEPERM) // an architecture this filter does not know

	p.label("native")
	p.load(offNr)
	if checkX32 {
		p.jump(bpf.JumpGreaterOrEqual, x32Bit, "deny", "")
	}
	p.jump(bpf.JumpEqual, sysIOUringSetup, "nosys", "")
	p.jump(bpf.JumpEqual, sysSocket, "socket", "allow")

	p.label("socket")
	p.load(offArg0)
	if f.NoUnix {
		p.jump(bpf.JumpEqual, unix.AF_UNIX, "eperm", "")
	}
	switch f.Inet {
	case "":
		p.ret(retAllow)
	case seccompStreamOnly:
		p.jump(bpf.JumpEqual, unix.AF_INET, "inet", "")
		p.jump(bpf.JumpEqual, unix.AF_INET6, "inet", "allow")
		p.label("inet")
		p.load(offArg1)
		p.add(bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: sockMask})
		p.jump(bpf.JumpEqual, unix.SOCK_STREAM, "", "deny")
		p.load(offArg2)
		p.jump(bpf.JumpEqual, 0, "allow", "")
		p.jump(bpf.JumpEqual, ipprotoTCP, "allow", "deny")
	default:
		p.jump(bpf.JumpEqual, unix.AF_INET, "deny", "")
		p.jump(bpf.JumpEqual, unix.AF_INET6, "deny", "allow")
	}

	p.label("compat")
	if compatArch != 0 {
		p.load(offNr)
		p.jump(bpf.JumpEqual, compatIOUringSetup, "nosys", "")
		for _, nr := range compatSocketCalls() {
			p.jump(bpf.JumpEqual, nr, "deny", "")
		}
		p.ret(retAllow)
	}

	p.label("deny")
	p.ret(retEACCES)
	p.label("nosys")
	p.ret(retENOSYS)
	p.label("eperm")
	p.ret(retEPERM)
	p.label("allow")
	p.ret(retAllow)
	return p.assemble()
}

// installNetworkFilter installs the filter on the calling OS thread; what
// it starts inherits it. no_new_privs must be set (restrictThread does).
func installNetworkFilter(f seccompFilter) error {
	if nativeArch == 0 {
		return errors.New("no seccomp filter for this architecture")
	}
	raw, err := networkFilter(f)
	if err != nil {
		return err
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0); err != nil {
		return fmt.Errorf("install the seccomp filter: %w", err)
	}
	return nil
}
