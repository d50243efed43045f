package git

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/shiro-neko/shiro/internal/secrets"
	"github.com/shiro-neko/shiro/internal/tool"
)

// The git tools keep the contents of secret files (secrets.IsFile) from the
// model the way grep does: a diff leaves them out and names them in a
// note, and blame and show refuse to print them. Their names are not
// secret; git_status lists them anyway.

// withheldShown is how many withheld paths a note names.
const withheldShown = 10

// secretChanges reads a `--name-status -z` listing (of git diff or git
// log) and returns the paths whose changes must be left out of a diff:
// every secret path, and the other side of a rename or copy that has a
// secret side, so that the pair cannot show up as one added file. Paths
// are relative to the top of the work tree, sorted, without repeats.
func secretChanges(listing []byte) []string {
	var out []string
	fields := bytes.Split(listing, []byte{0})
	for i := 0; i < len(fields); i++ {
		code := string(bytes.TrimLeft(fields[i], "\n"))
		if code == "" {
			continue
		}
		// A rename or copy (R100, C75) names two paths, anything else one.
		n := 1
		if code[0] == 'R' || code[0] == 'C' {
			n = 2
		}
		if i+n >= len(fields) {
			break
		}
		paths := make([]string, n)
		for k := range n {
			paths[k] = string(fields[i+1+k])
		}
		i += n
		if slices.ContainsFunc(paths, secrets.IsFile) {
			out = append(out, paths...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// excluding returns the pathspecs that leave paths (relative to the top of
// the work tree) out of a diff: `top` so they mean the same from any
// directory, `literal` so no character in a name acts as a wildcard.
func excluding(paths []string) []string {
	specs := make([]string, len(paths))
	for i, p := range paths {
		specs[i] = ":(top,exclude,literal)" + p
	}
	return specs
}

// withheldNote tells the model which secret files a diff leaves out, with
// paths relative to the workspace root.
func withheldNote(paths []string, prefix string) string {
	if len(paths) == 0 {
		return ""
	}
	shown := make([]string, 0, min(len(paths), withheldShown))
	for _, p := range paths[:min(len(paths), withheldShown)] {
		shown = append(shown, fromTop(p, prefix))
	}
	more := ""
	if len(paths) > withheldShown {
		more = fmt.Sprintf(" and %d more", len(paths)-withheldShown)
	}
	return fmt.Sprintf("[changes to secret files such as .env or keys withheld: %s%s; read one only if the user asks]",
		strings.Join(shown, ", "), more)
}

// withNote appends a withheld note to a diff, or stands alone when the
// secret files were all there was.
func withNote(diff, note string) string {
	switch {
	case note == "":
		return diff
	case diff == "":
		return note
	}
	return strings.TrimRight(diff, "\n") + "\n\n" + note
}

// secretContents is the answer for a file whose contents are withheld.
func secretContents(name string) string {
	return fmt.Sprintf("The contents of %s are withheld: it is a secret file (such as .env or a key). Read it only if the user asks.", name)
}

// namesKeep is how much of a listing of changed paths is read. A listing
// cut short could hide a secret path, so a longer one is refused.
const namesKeep = 8 << 20

// diffSecrets lists the secret paths among the changes `git diff` with
// opts and pathspec would show.
func (r *repo) diffSecrets(ctx context.Context, opts, pathspec []string) ([]string, error) {
	args := append([]string{"diff", "--name-status", "-z"}, opts...)
	if len(pathspec) > 0 {
		args = append(append(args, "--"), pathspec...)
	}
	return r.secretsListed(ctx, args)
}

// showSecrets lists the secret paths among the changes `git show ref`
// would show: those of the commit ref names, or of every commit of a
// range, against each parent of a merge.
func (r *repo) showSecrets(ctx context.Context, ref string, pathspec []string) ([]string, error) {
	args := []string{"log", "--no-walk", "-m", "--format=", "--name-status", "-z", ref}
	if len(pathspec) > 0 {
		args = append(append(args, "--"), pathspec...)
	}
	return r.secretsListed(ctx, args)
}

// secretsListed runs a git command that lists changed paths
// (`--name-status -z`) and returns the secret ones.
func (r *repo) secretsListed(ctx context.Context, args []string) ([]string, error) {
	out, err := r.runKeep(ctx, namesKeep, args...)
	if err != nil {
		return nil, err
	}
	if out.total > int64(len(out.head)) {
		return nil, tool.Failf("The change is too large to check it for secret files (over %d MB of file names); give a path to narrow it.", namesKeep>>20)
	}
	return secretChanges(out.head), nil
}

// blobPath returns the path part of a `REV:path` (or `:path`, `:N:path`)
// revision, read as git reads it: the first colon outside `{...}` ends the
// revision. ok is false for a revision that names no path, such as a
// commit, a bare object id or a `:/message` search.
func blobPath(ref string) (p string, ok bool) {
	if rest, isIndex := strings.CutPrefix(ref, ":"); isIndex {
		if len(rest) > 1 && rest[0] == '/' {
			return "", false
		}
		if len(rest) >= 2 && rest[0] >= '0' && rest[0] <= '3' && rest[1] == ':' {
			return rest[2:], true
		}
		return rest, true
	}
	depth := 0
	for i, c := range ref {
		switch {
		case c == '{':
			depth++
		case c == '}' && depth > 0:
			depth--
		case c == ':' && depth == 0:
			return ref[i+1:], true
		}
	}
	return "", false
}

// objectType is the type of the object ref names, through any tags:
// "commit", "tree" or "blob"; "" when ref is not one object (a range, a
// name git does not know).
func (r *repo) objectType(ctx context.Context, ref string) string {
	out, err := r.run(ctx, "cat-file", "-t", ref)
	if err != nil {
		return ""
	}
	kind := strings.TrimSpace(out.String())
	if kind == "tag" {
		if out, err = r.run(ctx, "cat-file", "-t", ref+"^{}"); err != nil {
			return ""
		}
		kind = strings.TrimSpace(out.String())
	}
	return kind
}
