package shellguard

import (
	"net/url"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A download saved to a file and run later on the same line is the same
// as one piped into a shell: `curl -o i.sh URL && bash i.sh`,
// `wget URL/i.sh; sh i.sh`, `curl URL > x && chmod +x x && ./x`.
// noteDownloadOutputs remembers the files a download writes, and
// runsDownloaded reports a program or script file that is one of them.

// noteDownloadOutputs records the files statement st, a command whose
// words are argv, saves a download to: its output redirections and the
// downloader's own output options.
func (a *engine) noteDownloadOutputs(sc *scope, st *syntax.Stmt, argv []arg) {
	if len(argv) == 0 || !argv[0].lit || !a.downloads(sc, argv, 0) {
		return
	}
	for _, r := range st.Redirs {
		if r.Word == nil || r.Hdoc != nil {
			continue
		}
		if t := sc.evalWord(r.Word); RedirectWrites(r.Op, t.text) {
			a.noteDownloaded(t)
		}
	}
	at := -1
	for i, w := range argv {
		if w.lit && isDownloader(programName(w.text)) {
			at = i
			break
		}
	}
	if at < 0 {
		return
	}
	base, rest := programName(argv[at].text), argv[at+1:]
	letter := byte('o') // curl, aria2c and fetch: -o FILE; wget: -O FILE (its -o is a log)
	if strings.HasPrefix(base, "wget") {
		letter = 'O'
	}
	named, remote := false, base != "curl" && !oneOf(base, "http", "https", "xh", "xhs", "curlie", "lwp-request")
	for i := 0; i < len(rest); i++ {
		w := rest[i]
		if !w.lit || len(w.text) < 2 || w.text[0] != '-' {
			continue
		}
		if long, ok := strings.CutPrefix(w.text, "--"); ok {
			name, v, attached := strings.Cut(long, "=")
			switch {
			case oneOf(name, "output", "output-document", "out") && attached:
				named = true
				a.noteDownloaded(literalArg(v))
			case oneOf(name, "output", "output-document", "out") && i+1 < len(rest):
				named = true
				i++
				a.noteDownloaded(rest[i])
			case oneOf(name, "remote-name", "remote-name-all"):
				remote = true
			}
			continue
		}
		if base == "curl" && strings.IndexByte(w.text, 'O') > 0 {
			remote = true
		}
		if k := strings.IndexByte(w.text, letter); k > 0 {
			named = true
			if v := w.text[k+1:]; v != "" {
				a.noteDownloaded(literalArg(v))
			} else if i+1 < len(rest) {
				i++
				a.noteDownloaded(rest[i])
			}
		}
	}
	if named || !remote {
		return
	}
	// curl -O, wget, aria2c and fetch save under the URL's last name.
	for _, w := range rest {
		if u, err := url.Parse(w.text); err == nil && w.lit && u.Scheme != "" && u.Host != "" {
			if name := path.Base(u.Path); name != "" && name != "/" && name != "." {
				a.noteDownloaded(literalArg(name))
			}
		}
	}
}

// noteDownloaded remembers one file a download writes; a name decided at
// run time is not remembered (the run of it is judged as decided at run
// time anyway).
func (a *engine) noteDownloaded(w arg) {
	if !w.lit || w.text == "" || w.text == "-" || isDescriptorPath(w.text) || w.text == "/dev/null" {
		return
	}
	a.downloaded = append(a.downloaded, path.Clean(w.text))
}

// runsDownloaded reports whether p names a file a download on the line
// saved.
func (a *engine) runsDownloaded(p string) bool {
	if len(a.downloaded) == 0 || p == "" {
		return false
	}
	p = path.Clean(p)
	for _, d := range a.downloaded {
		if d == p {
			return true
		}
	}
	return false
}
