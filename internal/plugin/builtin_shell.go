package plugin

import (
	"context"
	"encoding/base64"
	"regexp"
	"strings"
	"sync"
	"unicode/utf16"

	"github.com/shiro-neko/shiro/internal/shellguard"
)

// Guard refuses irreversible shell commands, and any command line it
// cannot analyse, with shellguard's verdict.
func Guard() Plugin {
	return Plugin{
		Name:        "guard",
		Description: "refuses irreversible shell commands (rm -rf, git reset --hard, force pushes, mkfs…)",
		Appendix: "The guard plugin refuses irreversible shell commands (forced or recursive rm, git reset --hard, " +
			"git clean -f, force pushes, branch deletes, DROP or TRUNCATE, mkfs, world-writable chmod, shutdown…) " +
			"however they are wrapped, and commands whose program or options are built at run time, which it cannot " +
			"check: spell commands out literally. When it refuses, show the user the exact command and ask them to " +
			"run it; do not rephrase it to get past the guard.",
		BeforeToolCall: func(_ context.Context, c Call) (string, error) {
			for _, a := range c.shell() {
				if v := a.Verdict(); v != nil {
					return v.Refusal(), nil
				}
			}
			return "", nil
		},
	}
}

// NoNetPipe refuses downloads run by a shell or interpreter (`curl … | sh`,
// `python <(wget -O- …)`) and PowerShell's iex / Invoke-Expression.
func NoNetPipe() Plugin {
	return Plugin{
		Name:        "no-net-pipe",
		Description: "refuses downloads piped into sh, node, python, ruby, perl or bun, and PowerShell iex",
		Appendix: "The no-net-pipe plugin refuses downloads piped or fed into an interpreter (sh, bash, node, " +
			"python, ruby, perl, bun, PowerShell iex). Save the script, show the user what it does, and let them decide.",
		BeforeToolCall: func(_ context.Context, c Call) (string, error) {
			for _, a := range c.shell() {
				for _, v := range a.Findings() {
					if v.Category == shellguard.CategoryPipeShell {
						return shellguard.Refusal("no-net-pipe", v.Command, v.Why), nil
					}
				}
				for _, cmd := range effective(a) {
					if invokesExpression(cmd) {
						return shellguard.Refusal("no-net-pipe", cmd.String(), "runs a string as PowerShell code"), nil
					}
				}
			}
			return "", nil
		},
	}
}

// psInvoke finds iex or Invoke-Expression as a word in PowerShell code.
// PowerShell has no parser in Go; the code searched is a parsed argument
// (the value of -Command), never the raw command line.
var psInvoke = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(^|[^\w-])(iex|invoke-expression)($|[^\w-])`)
})

func invokesExpression(cmd shellguard.Command) bool {
	switch name := cmd.Name(); name {
	case "iex", "invoke-expression":
		return true
	}
	for _, code := range powershellCode(cmd) {
		if psInvoke().MatchString(code) {
			return true
		}
	}
	return false
}

// powershellCode returns the code a powershell or pwsh command runs from
// its arguments: -Command and everything after it, a decoded
// -EncodedCommand, and Windows PowerShell's bare command words.
func powershellCode(cmd shellguard.Command) []string {
	name := strings.TrimSuffix(cmd.Name(), ".exe")
	if name != "powershell" && name != "pwsh" {
		return nil
	}
	args := cmd.Args[1:]
	for i := 0; i < len(args); i++ {
		t := strings.ToLower(args[i])
		switch {
		case t == "-c" || psParam(t, "-command", 4):
			return []string{strings.Join(args[i+1:], " ")}
		case t == "-e" || t == "-ec" || psParam(t, "-encodedcommand", 3):
			if i+1 < len(args) {
				return []string{decodePowerShell(args[i+1])}
			}
			return nil
		case strings.HasPrefix(t, "-"):
			if psParam(t, "-executionpolicy", 3) || t == "-ep" || psParam(t, "-workingdirectory", 3) || t == "-wd" ||
				psParam(t, "-windowstyle", 3) || psParam(t, "-configurationname", 3) || psParam(t, "-outputformat", 3) ||
				psParam(t, "-inputformat", 3) || t == "-of" || t == "-if" {
				i++
			}
		default:
			if name == "powershell" { // Windows PowerShell reads bare words as -Command
				return []string{strings.Join(args[i:], " ")}
			}
			return nil
		}
	}
	return nil
}

// psParam reports whether t abbreviates PowerShell parameter full, which
// PowerShell accepts from a unique prefix.
func psParam(t, full string, min int) bool {
	return len(t) >= min && strings.HasPrefix(full, t)
}

// decodePowerShell decodes -EncodedCommand: base64 of UTF-16LE text.
func decodePowerShell(b64 string) string {
	raw, err := base64.StdEncoding.DecodeString(strings.Trim(b64, `"'`))
	if err != nil || len(raw)%2 != 0 {
		return ""
	}
	units := make([]uint16, len(raw)/2)
	for i := range units {
		units[i] = uint16(raw[2*i]) | uint16(raw[2*i+1])<<8
	}
	return string(utf16.Decode(units))
}

// psRunAs finds Start-Process's -Verb RunAs in PowerShell code.
var psRunAs = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)-verb\s*:?\s*["']?runas\b`)
})

// NoRoot refuses commands that run as another user: sudo, doas, su,
// pkexec, run0, runas and Start-Process -Verb RunAs, wherever they appear
// in the line.
func NoRoot() Plugin {
	return Plugin{
		Name:        "no-root",
		Description: "refuses sudo, doas, su, runas and other ways of running as root",
		Appendix: "The no-root plugin refuses running as root or another user (sudo, doas, su, pkexec, run0, " +
			"runas). If elevated rights are needed, give the user the exact command to run.",
		BeforeToolCall: func(_ context.Context, c Call) (string, error) {
			for _, a := range c.shell() {
				for _, cmd := range effective(a) {
					if why := elevates(cmd); why != "" {
						return shellguard.Refusal("no-root", cmd.String(), why), nil
					}
				}
			}
			return "", nil
		},
	}
}

func elevates(cmd shellguard.Command) string {
	name := strings.TrimSuffix(cmd.Name(), ".exe")
	switch name {
	case "sudo", "sudo-rs", "doas", "su", "pkexec", "run0", "pfexec", "gsudo", "runas":
		return "runs a command as root or another user"
	case "start-process", "saps", "start":
		if verbRunAs(cmd.Args[1:]) {
			return "starts an elevated process"
		}
	}
	for _, code := range powershellCode(cmd) {
		if psRunAs().MatchString(code) {
			return "starts an elevated process"
		}
	}
	return ""
}

// verbRunAs finds Start-Process's -Verb RunAs (or -Verb:RunAs).
func verbRunAs(args []string) bool {
	for i, a := range args {
		t := strings.ToLower(a)
		name, value, attached := strings.Cut(t, ":")
		if !psParam(name, "-verb", 2) {
			continue
		}
		if !attached && i+1 < len(args) {
			value = strings.ToLower(args[i+1])
		}
		if strings.Trim(value, `"' `) == "runas" {
			return true
		}
	}
	return false
}
