package shellguard

// wrapperSpec describes a program that runs, after its options, the
// command it is given: a tracer, a namespace or privilege tool, a
// launcher. Knowing its options tells which word is the program (in
// `nsenter -t 1 rm -rf x` it is rm, not 1).
type wrapperSpec struct {
	opts optSpec
	// skip is how many operands come before the command (gosu's user,
	// envdir's directory).
	skip int
	// shell: given no command, it starts a shell, which reads its input.
	shell bool
	// attach lists options that make it act on a running process instead
	// of running a command (strace -p).
	attach []string
}

// wrapperSpecFor returns the spec of a wrapper follow knows through this
// catalogue; those whose words need more (sudo, env, xargs, flock…) have
// their own code.
func wrapperSpecFor(base string) (wrapperSpec, bool) {
	switch base {
	case "pkexec":
		return wrapperSpec{opts: optSpec{long: []string{"user"}}}, true
	case "time":
		return wrapperSpec{opts: optSpec{value: "fo", long: []string{"format", "output"}}}, true
	case "nice":
		return wrapperSpec{opts: optSpec{value: "n", long: []string{"adjustment"}}}, true
	case "exec":
		return wrapperSpec{opts: optSpec{value: "a"}}, true
	case "stdbuf":
		return wrapperSpec{opts: optSpec{value: "ioe", long: []string{"input", "output", "error"}}}, true
	case "ionice": // -p, -P and -u change running processes
		return wrapperSpec{opts: optSpec{value: "cnpPu", long: []string{"class", "classdata", "pid", "pgid", "uid"}},
			attach: []string{"p", "P", "u", "pid", "pgid", "uid"}}, true
	case "taskset": // the command follows the mask or CPU list
		return wrapperSpec{skip: 1, attach: []string{"p", "pid"}}, true
	case "timeout": // the command follows the duration
		return wrapperSpec{opts: optSpec{value: "sk", long: []string{"signal", "kill-after"}}, skip: 1}, true
	case "command": // -v and -V are queries: `command -v rm` runs nothing
		return wrapperSpec{attach: []string{"v", "V"}}, true
	case "caffeinate":
		return wrapperSpec{opts: optSpec{value: "tw"}}, true
	case "run0":
		return wrapperSpec{opts: optSpec{value: "ugD", long: []string{"user", "group", "nice", "chdir", "setenv", "property",
			"unit", "description", "slice", "machine", "background"}}}, true
	case "strace":
		return wrapperSpec{opts: optSpec{value: "abeEIOopPsSUX", long: []string{"attach", "signal", "trace", "trace-path", "output",
			"string-limit", "user", "env", "decode-fds", "columns", "status", "quiet", "silent", "absolute-timestamps",
			"expr", "inject", "fault", "summary-sort-by", "summary-columns", "kvm", "seccomp-bpf"}}, attach: []string{"p", "attach"}}, true
	case "ltrace":
		return wrapperSpec{opts: optSpec{value: "aAbDeFlnopsuwx", long: []string{"output", "library", "config", "indent", "align"}},
			attach: []string{"p"}}, true
	case "unshare":
		return wrapperSpec{opts: optSpec{value: "SGRw", long: []string{"setuid", "setgid", "root", "wd", "map-user", "map-group",
			"map-users", "map-groups", "propagation", "setgroups"}}, shell: true}, true
	case "nsenter":
		return wrapperSpec{opts: optSpec{value: "tSGN", long: []string{"target", "setuid", "setgid", "net-socket"}}, shell: true}, true
	case "setpriv":
		return wrapperSpec{opts: optSpec{long: []string{"reuid", "regid", "groups", "ruid", "euid", "rgid", "egid", "inh-caps",
			"ambient-caps", "bounding-set", "securebits", "selinux-label", "apparmor-profile", "landlock-access",
			"landlock-rule", "pdeathsig", "ptracer"}}}, true
	case "prlimit":
		return wrapperSpec{opts: optSpec{value: "po", attached: "cdefilmnqrstuvxy", long: []string{"pid", "output"}}, attach: []string{"p", "pid"}}, true
	case "fakeroot":
		return wrapperSpec{opts: optSpec{value: "lisb", long: []string{"lib", "faked"}}, shell: true}, true
	case "ssh-agent":
		return wrapperSpec{opts: optSpec{value: "aEPtO"}, attach: []string{"k"}}, true
	case "firejail":
		return wrapperSpec{shell: true}, true
	case "nohup", "unbuffer", "setsid", "valgrind", "eatmydata", "nocache", "catchsegv", "dbus-run-session", "dbus-launch", "catatonit",
		"tsocks", "arch", "pfexec", "with-contenv", "chronic", "ifne":
		return wrapperSpec{}, true
	case "tini":
		return wrapperSpec{opts: optSpec{value: "glpwe"}}, true
	case "dumb-init":
		return wrapperSpec{opts: optSpec{value: "r"}}, true
	case "proxychains", "proxychains4":
		return wrapperSpec{opts: optSpec{value: "f"}}, true
	case "torsocks":
		return wrapperSpec{opts: optSpec{value: "uapPi"}}, true
	case "xvfb-run":
		return wrapperSpec{opts: optSpec{value: "nsfepw", long: []string{"server-num", "server-args", "auth-file", "error-file", "xauth-protocol", "wait"}}}, true
	case "numactl":
		return wrapperSpec{opts: optSpec{value: "CNmiPp", long: []string{"physcpubind", "cpunodebind", "membind", "interleave",
			"preferred", "preferred-many", "weighted-interleave"}}}, true
	case "cgexec":
		return wrapperSpec{opts: optSpec{value: "g"}}, true
	case "chpst":
		return wrapperSpec{opts: optSpec{value: "uUbeEnlLmdofpc"}}, true
	case "softlimit":
		return wrapperSpec{opts: optSpec{value: "mdsalfoprct"}}, true
	case "setuidgid", "envuidgid", "envdir", "gosu", "su-exec", "s6-setuidgid", "s6-envdir", "lckdo":
		return wrapperSpec{skip: 1}, true
	case "aa-exec":
		return wrapperSpec{opts: optSpec{value: "pn", long: []string{"profile", "namespace"}}}, true
	case "sandbox-exec":
		return wrapperSpec{opts: optSpec{value: "fpD"}}, true
	case "daemonize":
		return wrapperSpec{opts: optSpec{value: "acEelopu"}}, true
	case "systemd-inhibit":
		return wrapperSpec{opts: optSpec{long: []string{"what", "who", "why", "mode"}}}, true
	case "gsudo":
		return wrapperSpec{opts: optSpec{value: "udn"}}, true
	case "systemd-cat":
		return wrapperSpec{opts: optSpec{value: "tp", long: []string{"identifier", "priority", "stderr-priority", "level-prefix"}}}, true
	case "newgrp":
		return wrapperSpec{shell: true, skip: 1}, true
	case "dotenv":
		return wrapperSpec{opts: optSpec{value: "ecv"}}, true
	case "systemd-run":
		return wrapperSpec{opts: optSpec{value: "pMEuHs", long: []string{"property", "machine", "host", "unit", "description",
			"slice", "setenv", "working-directory", "nice", "uid", "gid", "on-active", "on-boot", "on-startup", "on-unit-active",
			"on-unit-inactive", "on-calendar", "timer-property", "path-property", "socket-property", "service-type",
			"expand-environment"}}}, true
	case "systemd-nspawn":
		return wrapperSpec{opts: optSpec{value: "DMuUSZLp", long: []string{"directory", "machine", "user", "uuid", "slice",
			"property", "image", "bind", "bind-ro", "tmpfs", "overlay", "setenv", "network-interface", "network-bridge", "port",
			"capability", "drop-capability", "register", "keep-unit", "personality", "link-journal", "resolv-conf", "timezone",
			"chdir"}}, shell: true}, true
	}
	return wrapperSpec{}, false
}

// follow reads a wrapper's options and returns the command it runs.
func (w wrapperSpec) follow(rest []arg) next {
	opts, ops := scanOptions(rest, w.opts)
	if has(opts, w.attach...) {
		return next{}
	}
	if len(ops) < w.skip {
		return next{}
	}
	ops = ops[w.skip:]
	if len(ops) == 0 {
		if w.shell {
			return runs(shellArgv())
		}
		return next{}
	}
	return runs(ops)
}
