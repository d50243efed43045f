package shellguard

import "strings"

// What each program's own arguments say it reads and writes: the options
// that name a file written in place, the folder an archive is unpacked
// into, the operands a copy writes. commandAccesses (access.go) records
// what these readers find.

// inplaceAwk reports gawk's in-place mode (`-i inplace`), which rewrites
// the files it reads.
func inplaceAwk(args []arg) bool {
	for i, w := range args {
		if w.lit && (w.text == "-i" || w.text == "--include") && i+1 < len(args) && strings.HasPrefix(args[i+1].text, "inplace") ||
			w.lit && (w.text == "-iinplace" || strings.HasPrefix(w.text, "--include=inplace")) {
			return true
		}
	}
	return false
}

// gitWrites returns the paths a git command writes outside git's own
// bookkeeping of the work tree: the directory `git clone URL DIR`, `git
// init DIR` or `git worktree add DIR` makes, the hooks a --template
// copies into a repository, the file `git config --file F` changes and
// the directory `git apply --directory=D` patches.
func gitWrites(args []arg) []arg {
	opts, ops := scanOptions(args, optSpec{value: "Cc", long: gitValuedLong()})
	if len(ops) == 0 || !ops[0].lit {
		return nil
	}
	var here []arg
	for _, o := range opts {
		if o.name == "C" {
			here = []arg{o.value}
		}
	}
	in := func(dir arg) arg {
		if len(here) == 0 || strings.HasPrefix(dir.text, "/") {
			return dir
		}
		return arg{text: here[0].text + "/" + dir.text, src: here[0].src + "/" + dir.src, lit: here[0].lit && dir.lit}
	}
	sub, rest := ops[0].text, ops[1:]
	var out []arg
	switch sub {
	case "clone", "init":
		sopts, sops := scanOptions(rest, optSpec{value: "obuc", long: []string{"origin", "branch", "upload-pack", "template",
			"config", "reference", "reference-if-able", "depth", "shallow-since", "shallow-exclude", "separate-git-dir",
			"jobs", "filter", "server-option", "bundle-uri", "ref-format", "revision", "object-format", "initial-branch", "shared"}, permute: true})
		dir := literalArg(".")
		switch {
		case sub == "clone" && len(sops) > 1:
			dir = sops[1]
		case sub == "init" && len(sops) > 0:
			dir = sops[0]
		case sub == "clone":
			dir = arg{}
		}
		if dir.text != "" && dir.text != "." {
			out = append(out, in(dir))
		} else if sub == "init" {
			out = append(out, in(dir))
		}
		if _, ok := valueOf(sopts, "template"); ok && dir.text != "" {
			// The template's hooks are copied into the new repository.
			hooks := in(dir)
			out = append(out, arg{text: hooks.text + "/.git/hooks", src: hooks.src + "/.git/hooks", lit: hooks.lit})
		}
	case "worktree":
		if len(rest) > 1 && rest[0].lit && rest[0].text == "add" {
			_, wops := scanOptions(rest[1:], optSpec{value: "bB", long: []string{"reason", "orphan"}, permute: true})
			if len(wops) > 0 {
				out = append(out, in(wops[0]))
			}
		}
	case "config":
		copts, _ := scanOptions(rest, optSpec{value: "f", long: []string{"file", "blob", "default", "type", "comment", "value"}, permute: true})
		for _, o := range copts {
			if oneOf(o.name, "f", "file") && o.value.text != "" && o.value.text != "-" {
				out = append(out, in(o.value))
			}
		}
	case "apply":
		aopts, _ := scanOptions(rest, optSpec{value: "pC", long: []string{"directory", "exclude", "include", "whitespace", "build-fake-ancestor"}, permute: true})
		if dir, ok := valueOf(aopts, "directory"); ok {
			out = append(out, in(dir))
		}
	}
	return out
}

// tarExtractDir returns the directory tar extracts into (-x with -C DIR,
// or the working directory): it writes whatever the archive holds there,
// so the directory itself counts as written (`tar -xf x.tar -C ~/.ssh`).
func tarExtractDir(args []arg) (arg, bool) {
	opts := tarOptions(args)
	if !has(opts, "x", "extract", "get") {
		return arg{}, false
	}
	if dir, ok := valueOf(opts, "C", "directory"); ok {
		return dir, true
	}
	return literalArg("."), true
}

// extractDir is the directory unzip (-d), 7z (-oDIR), bsdtar and cpio
// extract into; the working directory when none is given.
func extractDir(base string, args []arg) (arg, bool) {
	switch base {
	case "unzip":
		opts, _ := scanOptions(args, optSpec{value: "dxP", permute: true})
		if dir, ok := valueOf(opts, "d"); ok {
			return dir, true
		}
		return literalArg("."), true
	case "7z", "7za":
		if len(args) == 0 || !args[0].lit || !oneOf(args[0].text, "x", "e") {
			return arg{}, false
		}
		for _, w := range args[1:] {
			if strings.HasPrefix(w.text, "-o") && len(w.text) > 2 {
				return afterPrefix(w, "-o"), true
			}
		}
		return literalArg("."), true
	case "bsdtar":
		return tarExtractDir(args)
	}
	for _, w := range args { // cpio -i / --extract writes into the working directory
		if w.lit && (w.text == "--extract" || strings.HasPrefix(w.text, "-") && !strings.HasPrefix(w.text, "--") && strings.Contains(w.text, "i")) {
			return literalArg("."), true
		}
	}
	return arg{}, false
}

// gitValuedLong is git's global long options that take a value.
func gitValuedLong() []string {
	var out []string
	for _, o := range gitValued {
		if name, ok := strings.CutPrefix(o, "--"); ok {
			out = append(out, name)
		}
	}
	return out
}

// printsOperands reports the builtins whose operands are text, never
// files they open (`echo .env >> .gitignore` reads no .env).
func printsOperands(base string) bool {
	return oneOf(base, "echo", "printf", "test", "[", "true", "false", ":", "export", "declare", "typeset", "local",
		"readonly", "set", "unset", "alias", "unalias", "type", "which", "hash", "read", "let", "shift", "exit", "return",
		"cd", "pushd", "popd", "eval", "trap")
}

// localOperands drops scp's and rsync's remote operands (host:path).
func localOperands(ops []arg) []arg {
	var out []arg
	for _, w := range ops {
		if i := strings.IndexByte(w.text, ':'); i > 0 && !strings.Contains(w.text[:i], "/") {
			continue
		}
		out = append(out, w)
	}
	return out
}

// operandSpec lists the value-taking options of the programs whose every
// operand is a file they write or remove.
func operandSpec(name string) optSpec {
	switch name {
	case "shred":
		return optSpec{value: "ns", long: []string{"iterations", "size", "random-source"}, permute: true}
	case "touch":
		return optSpec{value: "dtr", long: []string{"date", "reference", "time"}, permute: true}
	case "mkdir", "mkfifo", "mknod":
		return optSpec{value: "mZ", long: []string{"mode", "context"}, permute: true}
	case "truncate":
		return optSpec{value: "sr", long: []string{"size", "reference"}, permute: true}
	}
	return optSpec{permute: true}
}

// inPlace returns the files sed -i or perl -i edit. In a short cluster i
// takes the rest as a backup suffix (`-i.bak`); the first operand is the
// script unless one came with -e or -f.
func inPlace(args []arg, valued string, long []string) []arg {
	editing, script := false, false
	var ops []arg
	for i := 0; i < len(args); i++ {
		w := args[i]
		t := w.text
		switch {
		case t == "--" && w.lit:
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(t, "--") && w.lit:
			name, _, hasValue := strings.Cut(t[2:], "=")
			switch {
			case name == "in-place":
				editing = true
			case oneOf(name, long...):
				script = true
				if !hasValue {
					i++
				}
			}
		case len(t) > 1 && t[0] == '-' && w.lit:
		cluster:
			for j := 1; j < len(t); j++ {
				switch ch := t[j]; {
				case ch == 'i':
					editing = true
					break cluster
				case strings.IndexByte(valued, ch) >= 0:
					script = script || ch == 'e' || ch == 'E' || ch == 'f'
					if j == len(t)-1 {
						i++
					}
					break cluster
				}
			}
		default:
			ops = append(ops, w)
		}
	}
	if !editing {
		return nil
	}
	if len(ops) > 1 && ops[0].lit && ops[0].text == "" {
		ops = ops[1:] // BSD sed's separate, empty backup suffix: sed -i '' …
	}
	if !script && len(ops) > 0 {
		ops = ops[1:]
	}
	return ops
}

// tarArchive returns the archive tar creates or appends to (-c, -r, -u
// with -f FILE), in either option style.
func tarArchive(args []arg) (arg, bool) {
	opts := tarOptions(args)
	if !has(opts, "c", "r", "u", "create", "append", "update") {
		return arg{}, false
	}
	f, ok := valueOf(opts, "f", "file")
	if !ok || f.text == "" || f.text == "-" {
		return arg{}, false
	}
	return f, true
}

// tarOptions reads tar's options in either style: a first word without
// a dash is a cluster of options (`tar xf x.tar`, `tar cf x.tar …`).
func tarOptions(args []arg) []option {
	if len(args) == 0 {
		return nil
	}
	words := args
	if first := args[0]; first.lit && first.text != "" && first.text[0] != '-' {
		words = append([]arg{literalArg("-" + first.text)}, args[1:]...)
	}
	opts, _ := scanOptions(words, optSpec{value: "bCfFgHIKLNTVX", long: []string{"file", "directory"}, permute: true})
	return opts
}

// afterPrefix is the rest of a word after a literal prefix (dd's `of=`).
func afterPrefix(w arg, prefix string) arg {
	if w.lit {
		out := literalArg(strings.TrimPrefix(w.text, prefix))
		out.glob = w.glob
		return out
	}
	return arg{text: strings.TrimPrefix(w.text, prefix), src: w.src}
}
