package shellguard

import (
	"slices"
	"testing"
)

// Git settings, entry points and options that run programs are checked
// as the scripts they run, or refused when they cannot be.
func TestGitRunsWhatItsSettingsAndOptionsName(t *testing.T) {
	checkVerdicts(t, []verdictCase{
		{"git -c core.pager='rm -rf build' log", CategoryRm, whyRm},
		{"git -c core.fsmonitor='rm -rf build; false' status", CategoryRm, whyRm},
		{"git -c core.sshCommand='rm -rf build' fetch", CategoryRm, whyRm},
		{"git -c credential.helper='!rm -rf build' push", CategoryRm, whyRm},
		{"git -c diff.x.textconv='rm -rf build' diff", CategoryRm, whyRm},
		{"git -c \"core.pager=$(cat p)\" log", CategoryOpaque, "decided at run time"},
		{"git --config-env=core.pager=P log", CategoryOpaque, "from the environment"},
		{"git -c include.path=/tmp/evil.cfg status", CategoryOpaque, "configuration from a file"},
		{"git -c url.ext::sh.insteadOf=https:// fetch", CategoryOpaque, "ext::"},
		{"git clone 'ext::sh -c touch% /tmp/pwned'", CategoryOpaque, "ext::"},
		{"git --exec-path=/tmp/bin log", CategoryOpaque, "--exec-path"},
		{"/usr/lib/git-core/git-reset --hard", CategoryGitReset, whyReset},
		{"git-push --force origin main", CategoryGitPush, whyForcePush},
		{"git rset --hard", CategoryGitReset, "correct rset to reset"},
		{"git -c help.autocorrect=immediate psuh -f", CategoryGitPush, "correct psuh to push"},
		{"git difftool -x 'rm -rf build' HEAD", CategoryRm, whyRm},
		{"git rebase --exec='rm -rf build' HEAD~1", CategoryRm, whyRm},
		{"git submodule foreach 'rm -rf build'", CategoryRm, whyRm},
		{"git bisect run rm -rf build", CategoryRm, whyRm},
		{"git filter-branch --tree-filter 'rm -rf build' HEAD", CategoryRm, whyRm},
		{"git clone -u 'rm -rf build' repo copy", CategoryRm, whyRm},
		{"git config core.pager 'rm -rf build'", CategoryRm, whyRm},
		{"git config alias.r 'reset --hard'", CategoryGitReset, "through the git alias"},
		{"git -c core.pager=cat -c color.ui=never -c core.fsmonitor=false log", "", ""},
		{"git -c user.name='A B' commit -m x", "", ""},
		{"git rest", "", ""}, // a typo with nothing dangerous to become
		{"git lfs pull && git flow init -d", "", ""},
	})
}

// Programs that run shell commands are unwrapped, and what cannot be
// read is refused.
func TestProgramsThatRunShellCommands(t *testing.T) {
	checkVerdicts(t, []verdictCase{
		{"sqlite3 app.db '.shell rm -rf build'", CategoryRm, whyRm},
		{"sqlite3 app.db \".once '|rm -rf build'\" 'select 1'", CategoryRm, whyRm},
		{"sqlite3 x.db \".read '|curl -s https://x.example/i'\"", CategoryOpaque, ".read"},
		{"sqlite3 x.db \"select writefile('/tmp/x', 'y')\"", CategoryOpaque, "writefile"},
		{"psql -c '\\! rm -rf build'", CategoryRm, whyRm},
		{"psql -o '|rm -rf build' -c 'select 1'", CategoryRm, whyRm},
		{"psql -c \"COPY t TO PROGRAM 'rm -rf build'\"", CategoryRm, whyRm},
		{"mysql -e 'system rm -rf build'", CategoryRm, whyRm},
		{"strace -f -o /dev/null rm -rf build", CategoryRm, whyRm},
		{"nsenter -t 1 -m rm -rf build", CategoryRm, whyRm},
		{"prlimit --nofile=10 rm -rf build", CategoryRm, whyRm},
		{"tar -cf x.tar --to-command='rm -rf build' .", CategoryRm, whyRm},
		{"tar xf x.tar -I 'rm -rf build'", CategoryRm, whyRm},
		{"zip -TT 'rm -rf build' a.zip f", CategoryRm, whyRm},
		{"zip -TT='rm -rf build' -T a.zip f", CategoryRm, whyRm},
		{"rsync -e 'rm -rf build' a host:", CategoryRm, whyRm},
		{"ssh -o ProxyCommand='rm -rf build' host", CategoryRm, whyRm},
		{"ssh host 'rm -rf ~/proj'", CategoryRm, whyRm},
		{"npx -c 'rm -rf build'", CategoryRm, whyRm},
		{"uv run rm -rf build", CategoryRm, whyRm},
		{"awk 'BEGIN{system(\"rm -rf build\")}'", CategoryRm, whyRm},
		{"awk 'BEGIN { print \"x\" | \"sh\" }'", CategoryOpaque, "run time into a shell"},
		{"awk -v c=x 'BEGIN{system(c)}'", CategoryOpaque, "built at run time"},
		{"sed 'e rm -rf build' f", CategoryRm, whyRm},
		{"sed 's/.*/x/e' f", CategoryOpaque, "s///e"},
		{"make CC='rm -rf build'", CategoryRm, whyRm},
		{"make --eval='$(shell rm -rf build)'", CategoryOpaque, "--eval"},
		{"vim -c '!rm -rf build' f", CategoryOpaque, "editor commands"},
		{"gdb -batch -ex 'shell rm -rf build'", CategoryOpaque, "debugger"},
		{"expect -c 'spawn rm -rf build'", CategoryOpaque, "Tcl"},
		{"echo 'rm -rf build' | at now", CategoryRm, whyRm},
		{"printf '* * * * * rm -rf build\\n' | crontab -", CategoryRm, whyRm},
		{"tmux new-session -d 'rm -rf build'", CategoryRm, whyRm},
		{"hyperfine --prepare 'rm -rf build' ls", CategoryRm, whyRm},
		{"cmake -E rm -rf build", CategoryRm, whyRm},
		{"coreutils --coreutils-prog=rm -rf build", CategoryRm, whyRm},
		{"bwrap --ro-bind / / --dev /dev rm -rf build", CategoryRm, whyRm},
		// their everyday use passes
		{"awk -F'|' '/a|b/ { print $1 | \"sort\" }' f", "", ""},
		{"sed -e 's/a/b/g; /^#/d' -e '$a\\\nend' f", "", ""},
		{"sed -n '/start/,/end/{s/x/y/;p}' f", "", ""},
		{"tar -czf backup.tar.gz src && zip -r out.zip src", "", ""},
		{"tmux new-session -d -s dev 'npm run dev'", "", ""},
		{"sqlite3 app.db 'select count(*) from t'", "", ""},
		{"ssh host uptime", "", ""},
		{"make -j4 CC=clang test", "", ""},
	})
}

// Variables that name a program, or make programs load code, are judged
// by their value.
func TestVariablesThatRunPrograms(t *testing.T) {
	checkVerdicts(t, []verdictCase{
		{"LESSOPEN='|rm -rf build %s' less f", CategoryRm, whyRm},
		{"PAGER='rm -rf build' man ls", CategoryRm, whyRm},
		{"export GIT_EDITOR='rm -rf build'; git commit", CategoryRm, whyRm},
		{"env PAGER='rm -rf build' git log", CategoryRm, whyRm},
		{"sudo GIT_SSH_COMMAND='rm -rf build' git fetch", CategoryRm, whyRm},
		{"env 'BASH_FUNC_ls%%=() { rm -rf build; }' bash -c ls", CategoryRm, whyRm},
		{"PAGER=$(cat p) git log", CategoryOpaque, "decided at run time"},
		{"read PAGER < f; git log", CategoryOpaque, "read at run time"},
		{"mapfile -t PAGER < f; git log", CategoryOpaque, "read at run time"},
		{"sleep 1 & wait -n -p PAGER; git log", CategoryOpaque, "read at run time"},
		{"read -r line < f; mapfile -t lines < f", "", ""},
		{"BASH_ENV=./x.sh bash -c ls", CategoryOpaque, "BASH_ENV"},
		{"LD_PRELOAD=./x.so ls", CategoryOpaque, "LD_PRELOAD"},
		{"GIT_CONFIG_PARAMETERS=\"'core.pager'='x'\" git log", CategoryOpaque, "GIT_CONFIG_PARAMETERS"},
		{"PS4='$(rm -rf build)' bash -xc ls", CategoryOpaque, "PS4"},
		{"NODE_OPTIONS='--require ./evil.js' npm test", CategoryOpaque, "NODE_OPTIONS"},
		{"declare -n r=PAGER; r=x", CategoryOpaque, "name reference"},
		{"PAGER=cat git log; EDITOR=true git commit --amend --no-edit", "", ""},
		{"NODE_OPTIONS=--max-old-space-size=4096 npm run build", "", ""},
		{"PS4='+ ${LINENO}: ' bash -xc ls", "", ""},
	})
}

// Commands as written say why they run other code, for the permission
// rules; their canonical spelling names the program by its base name.
func TestCommandsSayWhatElseTheyRun(t *testing.T) {
	a := Analyze(`git -c core.pager=less log; git status; sudo make install; alias x=y; ls; PAGER=more git log; find . -exec true \;; python3 x.py`)
	var got []string
	for _, c := range a.Commands() {
		got = append(got, c.RunsCode)
	}
	want := []string{"sets git configuration (core.pager) that can run programs", "", "runs the command it is given",
		"makes a command name run other commands", "", "sets PAGER, which makes programs run code", "runs the command it is given", ""}
	if !slices.Equal(got, want) {
		t.Errorf("RunsCode\n got %q\nwant %q", got, want)
	}
	for in, want := range map[string]string{
		"/bin/rm -rf x":                 "rm -rf x",
		"RM x":                          "rm x",
		"git -C d -c a=b reset --hard":  "git reset --hard",
		"/usr/lib/git-core/git-push -f": "git push -f",
	} {
		c := Command{Args: splitForTest(in)}
		if got, ok := c.Canonical(); !ok || got != want {
			t.Errorf("Canonical(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"rm -rf x", "git status", "ls"} {
		if got, ok := (Command{Args: splitForTest(in)}).Canonical(); ok {
			t.Errorf("Canonical(%q) = %q, want it unchanged", in, got)
		}
	}
}

func splitForTest(s string) []string {
	var out []string
	for _, c := range Analyze(s).Commands() {
		out = append(out, c.Args...)
	}
	return out
}
