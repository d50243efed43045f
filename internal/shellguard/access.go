package shellguard

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Access is one file path a command line reads or writes, as the guard
// sees it before the line runs: the path as the command names it, with
// variables the line assigns read through, and the directories the
// command may run in, with the line's cd, pushd and popd followed. The
// path plugins (secrets, protect) resolve it against the file system.
type Access struct {
	// Path is the file, relative to each of Dirs unless it is absolute.
	Path Path
	// Dirs are the directories the command may run in, each relative to
	// where the line starts (the empty Path is that directory) unless
	// absolute; none means only where the line starts. AnyDir says it may
	// also run somewhere the guard cannot tell (`cd "$x"`, a cd in a loop).
	Dirs   []Path
	AnyDir bool
	// Write marks a file the command creates, changes or removes; the
	// others are files it reads or sends somewhere.
	Write bool
	// Into names the file the command writes inside Path when Path turns
	// out to be a directory (`cp .env backup/` writes backup/.env).
	Into string
	// Kind says what a write does to Path.
	Kind WriteKind
	// Command is the command as written, for refusals.
	Command string
}

// WriteKind says what a write does to its path.
type WriteKind int

const (
	// Changes creates the file or changes what it holds (or does something
	// the guard does not tell apart).
	Changes WriteKind = iota
	// MakesDir makes a new directory (mkdir): nothing that exists changes.
	MakesDir
	// Removes removes the file (rm, unlink, rmdir); its contents are not
	// changed in place.
	Removes
)

// Link is a link a command line makes (`ln -s TARGET NAME`): after it,
// a path through Name leads to Target.
type Link struct {
	Name, Target Path
	Dirs         []Path // as Access.Dirs
	AnyDir       bool
	// Symbolic: a relative Target is relative to Name's directory, as a
	// symlink's is; a hard link's is relative to the working directory.
	Symbolic bool
}

// Accesses returns the files the line reads and writes that the guard can
// see: redirections, and the files named to programs (every operand may be
// read; tee, cp, mv, rm, touch, sed -i, dd of=, curl -o… write theirs).
// What a program decides for itself (`python -c "open('x','w')"`) and what
// find or xargs pass at run time are not listed.
func (a *Analysis) Accesses() []Access { return a.accesses }

// Links returns the links the line makes, in order.
func (a *Analysis) Links() []Link { return a.links }

// accessRecorder collects accesses for one command.
type accessRecorder struct {
	a       *engine
	sc      *scope
	dirs    []Path
	anyDir  bool
	command string
	kind    WriteKind // of the writes being recorded
}

func (a *engine) recorder(sc *scope, at string) *accessRecorder {
	dirs, anyDir := where(sc)
	return &accessRecorder{a: a, sc: sc, dirs: dirs, anyDir: anyDir, command: at}
}

func (r *accessRecorder) add(w arg, write bool, into string) {
	if w.placeholder || r.a.quiet > 0 || r.a.replaying > 0 {
		return
	}
	if write && w.lit && isRawDevice(w.text) {
		// Whichever program writes it (dd of=, cp, tee, a redirection),
		// a raw device is written under every file system on it.
		r.a.report(Verdict{Command: r.command, Category: CategoryDisk, Why: whyDisk}, false)
	}
	if w.lit && !w.glob && !strings.HasPrefix(w.text, "~") {
		// The usual word: one piece of literal text, kept without
		// allocating a path of its own.
		if w.text == "" || !r.a.charge(1) {
			return
		}
		r.a.out.accesses = append(r.a.out.accesses, Access{
			Path: Path{Parts: r.a.onePart(PathPart{Kind: PathText, Text: w.text})}, Dirs: r.dirs, AnyDir: r.anyDir,
			Write: write, Into: into, Command: r.command, Kind: r.kind,
		})
		return
	}
	for _, p := range r.a.pathsOf(r.sc, w) {
		if !r.a.charge(1) {
			return
		}
		if len(p.Parts) == 0 {
			continue
		}
		r.a.out.accesses = append(r.a.out.accesses, Access{
			Path: p, Dirs: r.dirs, AnyDir: r.anyDir, Write: write, Into: into, Command: r.command, Kind: r.kind,
		})
	}
}

func (r *accessRecorder) link(target, name arg, symbolic bool) {
	if r.a.quiet > 0 || r.a.replaying > 0 || name.placeholder || target.placeholder {
		return
	}
	names, targets := r.a.pathsOf(r.sc, name), r.a.pathsOf(r.sc, target)
	for _, n := range names {
		for _, t := range targets {
			r.a.out.links = append(r.a.out.links, Link{Name: n, Target: t, Dirs: r.dirs, AnyDir: r.anyDir, Symbolic: symbolic})
		}
	}
}

// commandAccesses records what one effective command reads and writes.
// hops is how many wrappers the command runs through: the words of a
// wrapped command were already read as the wrapper's, except those the
// guard derived (env -S's, an alias's).
func (a *engine) commandAccesses(sc *scope, base string, argv []arg, at string, hops int) {
	if a.quiet > 0 || a.replaying > 0 || len(argv) < 2 {
		return
	}
	r := a.recorder(sc, at)
	args := argv[1:]
	if !printsOperands(base) {
		for _, w := range args {
			if hops == 0 || w.word == nil {
				r.readWord(w)
			}
		}
	}
	switch base {
	case "tee":
		_, ops := scanOptions(args, optSpec{permute: true})
		r.writeAll(ops)
	case "rm", "unlink", "rmdir", "shred", "touch", "mkdir", "truncate", "mkfifo", "mknod":
		_, ops := scanOptions(args, operandSpec(base))
		if base == "mknod" && len(ops) > 1 {
			ops = ops[:1]
		}
		switch base {
		case "mkdir":
			r.kind = MakesDir
		case "rm", "unlink", "rmdir":
			r.kind = Removes
		}
		r.writeAll(ops)
		r.kind = Changes
	case "chmod", "chown", "chgrp":
		opts, ops := scanOptions(args, optSpec{long: []string{"reference", "from"}, permute: true})
		if _, ref := valueOf(opts, "reference"); !ref && len(ops) > 0 {
			ops = ops[1:] // the mode or owner
		}
		r.writeAll(ops)
	case "cp", "mv", "ln", "install", "link", "rsync", "scp":
		r.copies(base, args)
	case "dd":
		for _, w := range args {
			if strings.HasPrefix(w.text, "of=") {
				r.add(afterPrefix(w, "of="), true, "")
			}
		}
	case "sed", "gsed":
		r.writeAll(inPlace(args, "efl", []string{"expression", "file", "line-length"}))
	case "perl":
		r.writeAll(inPlace(args, "eEIMx", nil))
	case "sort":
		opts, _ := scanOptions(args, optSpec{value: "oktST", long: []string{"output", "key", "field-separator", "temporary-directory", "buffer-size"}, permute: true})
		r.writeValues(opts, "o", "output")
	case "curl":
		opts, _ := scanOptions(args, optSpec{value: "ABbcCDdEeFHKmoPQrTtUuwXxYyz",
			long: []string{"output", "dump-header", "cookie-jar", "data", "header", "request", "user", "url", "form", "config",
				"data-binary", "data-raw", "data-urlencode", "upload-file", "trace", "trace-ascii", "stderr", "etag-save", "hsts", "alt-svc"},
			permute: true})
		r.writeValues(opts, "o", "output", "D", "dump-header", "c", "cookie-jar", "trace", "trace-ascii", "stderr", "etag-save")
	case "wget", "wget2":
		opts, _ := scanOptions(args, optSpec{value: "OoaPeUTtwQlADIXRiB",
			long: []string{"output-document", "output-file", "append-output", "directory-prefix", "post-file", "body-file"}, permute: true})
		r.writeValues(opts, "O", "output-document", "o", "output-file", "a", "append-output", "P", "directory-prefix")
	case "find":
		for i, w := range args {
			if w.lit && oneOf(w.text, "-fprint", "-fprint0", "-fls", "-fprintf") && i+1 < len(args) {
				r.add(args[i+1], true, "")
			}
		}
	case "tar":
		if file, ok := tarArchive(args); ok {
			r.add(file, true, "")
		}
		if dir, ok := tarExtractDir(args); ok {
			r.add(dir, true, "")
		}
	case "unzip", "bsdtar", "7z", "7za", "cpio":
		if dir, ok := extractDir(base, args); ok {
			r.add(dir, true, "")
		}
	case "git":
		r.writeAll(gitWrites(args))
	case "patch":
		opts, ops := scanOptions(args, optSpec{value: "pdioBDFrVYzg", long: []string{"strip", "directory",
			"input", "output", "prefix", "ifdef", "fuzz", "reject-file", "version-control", "basename-prefix",
			"suffix", "get", "quoting-style"}, permute: true})
		r.writeValues(opts, "o", "output", "r", "reject-file")
		switch {
		case len(ops) > 0:
			r.add(ops[0], true, "") // the file to patch
		default:
			// The files the diff names, inside -d DIR or here.
			if dir, ok := valueOf(opts, "d", "directory"); ok {
				r.add(dir, true, "")
			} else {
				r.add(literalArg("."), true, "")
			}
		}
	case "awk", "gawk", "mawk", "nawk":
		if inplaceAwk(args) {
			spec := awkSpec()
			spec.permute = true
			opts, ops := scanOptions(args, spec)
			if !awkProgramInOptions(opts) && len(ops) > 0 {
				ops = ops[1:] // the program, then the files it rewrites
			}
			r.writeAll(ops)
		}
	case "ssh-keygen":
		opts, _ := scanOptions(args, optSpec{value: "abCDEFfGIJjKmMNnOPrSstVwYZz", permute: true})
		if f, ok := valueOf(opts, "f"); ok && !has(opts, "l", "y", "F", "R", "B", "L", "Y") {
			r.add(f, true, "")
			r.add(arg{text: f.text + ".pub", src: f.src + ".pub", lit: f.lit}, true, "")
		}
	}
}

// readWord records the files an argument may name: the word itself unless
// it is an option, and what follows `@` or `=` in it (`-d @.env`,
// `--data-binary=@.env`, `-F f=@.env`), which programs read as files.
func (r *accessRecorder) readWord(w arg) {
	t := w.text
	if t == "" || strings.Contains(t, "://") {
		return
	}
	if !strings.HasPrefix(t, "-") {
		r.add(w, false, "")
	}
	if !w.lit {
		return
	}
	// Every `@`, `<` or `=` may start a file name: curl -F reads
	// `f=@.env;type=text/plain` and `f=<.env`, ending the name at `;`.
	for i := 0; i < len(t); i++ {
		if t[i] != '@' && t[i] != '=' && t[i] != '<' || i+1 == len(t) {
			continue
		}
		rest := t[i+1:]
		if rest[0] == '@' || rest[0] == '<' {
			rest = rest[1:]
		}
		if j := strings.IndexByte(rest, ';'); j >= 0 {
			rest = rest[:j]
		}
		if rest != "" && !strings.HasPrefix(rest, "-") && !strings.ContainsAny(rest, "@=<") {
			piece := literalArg(rest)
			piece.glob = w.glob && hasGlob(rest)
			r.add(piece, false, "")
		}
	}
}

func (r *accessRecorder) writeAll(ops []arg) {
	for _, w := range ops {
		r.add(w, true, "")
	}
}

func (r *accessRecorder) writeValues(opts []option, names ...string) {
	for _, o := range opts {
		if oneOf(o.name, names...) && o.value.text != "" && o.value.text != "-" {
			r.add(o.value, true, "")
		}
	}
}

// copies records what cp, mv, ln, install, rsync and scp write: the
// destination, or each source's name inside it when it is a directory;
// mv also removes its sources, and ln makes links.
func (r *accessRecorder) copies(base string, args []arg) {
	opts, ops := scanOptions(args, optSpec{value: "tSmogbZeT", long: []string{"target-directory", "suffix", "mode", "owner", "group", "backup", "rsh", "rsync-path"}, permute: true})
	if base == "mv" {
		r.writeAll(ops)
	}
	if base == "scp" || base == "rsync" {
		ops = localOperands(ops)
	}
	var dirs []arg
	for _, o := range opts {
		if o.name == "t" || strings.HasPrefix("target-directory", o.name) && len(o.name) > 2 {
			dirs = append(dirs, o.value)
		}
	}
	symbolic := base == "ln" && has(opts, "s", "symbolic")
	sources := ops
	if len(dirs) == 0 {
		if len(ops) < 2 {
			if (base == "ln" || base == "link") && len(ops) == 1 {
				name := literalArg(path.Base(ops[0].text)) // a link named like its target, here
				r.add(name, true, "")
				r.link(ops[0], name, symbolic)
			}
			return
		}
		dest := ops[len(ops)-1]
		sources = ops[:len(ops)-1]
		into := ""
		if len(sources) == 1 && sources[0].lit {
			into = path.Base(sources[0].text)
		}
		r.add(dest, true, into)
		if base == "ln" || base == "link" {
			for _, s := range sources {
				r.link(s, dest, symbolic)
			}
		}
		if len(sources) == 1 {
			return
		}
		dirs = []arg{dest}
	}
	for _, d := range dirs {
		for _, s := range sources {
			if !s.lit || !d.lit {
				r.add(arg{text: d.text + "/" + s.text, src: d.src + "/" + s.src}, true, "")
				continue
			}
			name := literalArg(strings.TrimSuffix(d.text, "/") + "/" + path.Base(s.text))
			r.add(name, true, "")
			if base == "ln" {
				r.link(s, name, symbolic)
			}
		}
	}
}

// redirectAccess records a redirection's file: written for an output
// redirection (`>&file` included), read for an input one.
func (a *engine) redirectAccess(sc *scope, op syntax.RedirOperator, target arg, at string) {
	if a.quiet > 0 || a.replaying > 0 {
		return
	}
	r := a.recorder(sc, at)
	if RedirectWrites(op, target.text) {
		r.add(target, true, "")
	}
	if op == syntax.RdrIn || op == syntax.RdrInOut {
		r.add(target, false, "")
	}
}

// onePart returns a one-part slice carved from a slab the engine refills
// a chunk at a time, so that a command with many plain words does not
// allocate once per word.
func (a *engine) onePart(p PathPart) []PathPart {
	if len(a.partSlab) == cap(a.partSlab) {
		a.partSlab = make([]PathPart, 0, 64)
	}
	a.partSlab = append(a.partSlab, p)
	n := len(a.partSlab)
	return a.partSlab[n-1 : n : n]
}
