package secrets

import (
	"net/url"
	"slices"
	"strings"
)

// EnvKind says why an environment variable is kept from the programs shiro
// starts for the model (commands, hooks, MCP servers).
type EnvKind int

const (
	// EnvKept is an ordinary variable: it is passed on.
	EnvKept EnvKind = iota
	// EnvCredentialName is named like a credential (GITHUB_TOKEN,
	// AWS_SECRET_ACCESS_KEY, PGPASSWORD, NPM_CONFIG__AUTH…).
	EnvCredentialName
	// EnvCredentialValue is innocently named but holds one: a URL with a
	// password (DATABASE_URL=postgres://u:pw@db), a connection string with
	// Password=, a private key, a token in a well-known format.
	EnvCredentialValue
	// EnvServer points programs at a server outside the sandbox that would
	// act for them unconfined: a terminal multiplexer (TMUX), an agent
	// (SSH_AUTH_SOCK), a bus (DBUS_SESSION_BUS_ADDRESS), a container
	// daemon (DOCKER_HOST), a display, an editor's remote control.
	EnvServer
)

// String describes the kind for messages.
func (k EnvKind) String() string {
	switch k {
	case EnvCredentialName:
		return "named like a credential"
	case EnvCredentialValue:
		return "holds a credential"
	case EnvServer:
		return "points at a server outside the sandbox"
	}
	return "kept"
}

// ClassifyEnv says whether the variable name=value may reach a program
// started for the model. The name is read in word parts (split at `_`,
// upper-cased) so that PATH is not PASS and GIT_AUTHOR_NAME is not AUTH;
// the value is read only for what no name gives away.
func ClassifyEnv(name, value string) EnvKind {
	upper := strings.ToUpper(name)
	switch {
	case serverName(upper) || serverValue(value):
		return EnvServer
	case credentialName(upper):
		return EnvCredentialName
	case credentialValue(value):
		return EnvCredentialValue
	}
	return EnvKept
}

// credentialName is the name rule. Words that are never anything but a
// credential count anywhere in the name (PGPASSWORD, CLIENTSECRET); short
// or ambiguous ones only as a whole word part, or at a part's edge where
// they are glued to their qualifier (APIKEY, OAUTH, SSHPASS).
func credentialName(upper string) bool {
	for _, w := range []string{"SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "COOKIE"} {
		if strings.Contains(upper, w) {
			return true
		}
	}
	i := -1
	for p := range strings.SplitSeq(upper, "_") {
		i++
		switch {
		case p == "":
			continue
		// TOKEN: GITHUB_TOKEN, ACCESSTOKEN, HF_TOKEN; not
		// TOKENIZERS_PARALLELISM, a Hugging Face switch.
		case strings.Contains(p, "TOKEN") && !strings.HasPrefix(p, "TOKENIZER"):
			return true
		// KEY: AWS_SECRET_ACCESS_KEY, STRIPE_KEY, OPENAI_APIKEY; not
		// KEYTIMEOUT (zsh), KEYMAP, API_KEYS_DIR, nor GIT_CONFIG_KEY_<n>,
		// which names a git setting (its GIT_CONFIG_VALUE_<n> is read
		// by value, and ScrubEnviron keeps the set whole).
		case p == "KEY" && !strings.HasPrefix(upper, "GIT_CONFIG_KEY_"):
			return true
		case strings.HasSuffix(p, "APIKEY") || strings.HasSuffix(p, "ACCESSKEY") || strings.HasSuffix(p, "PRIVATEKEY"):
			return true
		// PASS: DB_PASS, SSHPASS (sshpass reads the password from it),
		// GIT_ASKPASS and SSH_ASKPASS (programs that hand out
		// passwords); not PATH, not PASSENGER_*.
		case p == "PASS" || strings.HasSuffix(p, "PASS"):
			return true
		// PWD as a later part is a password (MYSQL_PWD); PWD and
		// OLDPWD alone are the working directories.
		case p == "PWD" && i > 0:
			return true
		// AUTH: NPM_CONFIG__AUTH, SENTRY_AUTH_TOKEN, DOCKER_AUTH_CONFIG,
		// GITHUB_OAUTH, AUTHORIZATION; not GIT_AUTHOR_NAME, XAUTHORITY
		// (a display's cookie, withheld with the display below).
		case strings.HasSuffix(p, "AUTH") || (strings.HasPrefix(p, "AUTH") && p != "AUTHOR" && p != "AUTHORS"):
			return true
		// PRIVATE as a part (SSH_PRIVATE_KEY), not GOPRIVATE, which
		// lists module paths a Go build needs.
		case p == "PRIVATE":
			return true
		// SESSION: AWS_SESSION_TOKEN, BW_SESSION (Bitwarden's unlocked
		// vault), OP_SESSION_<account> (1Password). XDG_SESSION_TYPE
		// and the like go with them: no build reads them.
		case p == "SESSION":
			return true
		case p == "CREDS" || p == "CRED" || p == "DSN" || p == "WEBHOOK" || p == "JWT" || p == "PAT":
			return true
		}
	}
	// Kerberos and cloud metadata credentials that none of the words
	// above name.
	return slices.Contains([]string{"KRB5CCNAME", "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"}, upper)
}

// serverNames are the variables that tell a program where a server of the
// person's listens, when that server would do what it is asked outside the
// sandbox: open a window running a command, sign with a key, start a
// container, type into a terminal.
func serverNames() []string {
	return []string{
		// Terminal multiplexers and terminals with remote control.
		"TMUX", "TMUX_PANE", "TMUX_TMPDIR", "STY", "SCREENDIR", "ZELLIJ", "ZELLIJ_SESSION_NAME", "ZELLIJ_PANE_ID",
		"KITTY_LISTEN_ON", "KITTY_PUBLIC_KEY", "WEZTERM_UNIX_SOCKET", "ALACRITTY_SOCKET",
		// Agents and buses.
		"SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO", "GNOME_KEYRING_CONTROL",
		"DBUS_SESSION_BUS_ADDRESS", "DBUS_SYSTEM_BUS_ADDRESS", "SESSION_MANAGER",
		// Container daemons.
		"DOCKER_HOST", "CONTAINER_HOST", "PODMAN_HOST",
		// The per-user runtime folder is where the rest of these listen
		// (docker.sock, podman, the gpg agent, the bus, pipewire, the
		// user's systemd); tools that want a runtime folder fall back
		// to TMPDIR without it.
		"XDG_RUNTIME_DIR",
		// Displays and compositors: a display accepts synthetic
		// keystrokes into the person's terminal.
		"DISPLAY", "XAUTHORITY", "WAYLAND_DISPLAY", "WAYLAND_SOCKET", "SWAYSOCK", "I3SOCK",
		"HYPRLAND_INSTANCE_SIGNATURE", "NIRI_SOCKET", "PULSE_SERVER", "PIPEWIRE_REMOTE",
		// Editors that run what they are sent.
		"NVIM", "NVIM_LISTEN_ADDRESS", "VIM_SERVERNAME", "EMACS_SOCKET_NAME", "EMACS_SERVER_FILE",
		"VSCODE_IPC_HOOK", "VSCODE_IPC_HOOK_CLI", "VSCODE_GIT_IPC_HANDLE",
		// systemd socket activation hands over listening sockets.
		"LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES", "NOTIFY_SOCKET",
	}
}

// serverName is serverNames, and any name ending in a socket (…_SOCK,
// …_SOCKET, …SOCK) or naming an IPC handle.
func serverName(upper string) bool {
	if slices.Contains(serverNames(), upper) {
		return true
	}
	for p := range strings.SplitSeq(upper, "_") {
		if strings.HasSuffix(p, "SOCK") || strings.HasSuffix(p, "SOCKET") || p == "IPC" {
			return true
		}
	}
	return false
}

// serverValue is a value that is itself a Unix socket address
// (DOCKER_HOST=unix:///run/docker.sock, unix:path=… for D-Bus).
func serverValue(value string) bool {
	return strings.HasPrefix(value, "unix:")
}

// tokenPrefixes begin tokens in formats their issuers publish, so a value
// can be recognised whatever variable holds it.
func tokenPrefixes() []string {
	return []string{
		"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", // GitHub
		"glpat-", "gldt-", // GitLab
		"xoxb-", "xoxp-", "xoxa-", "xoxs-", // Slack
		"sk-ant-", "sk-proj-", // Anthropic, OpenAI
		"npm_",  // npm
		"hf_",   // Hugging Face
		"pypi-", // PyPI
	}
}

// credentialValue is a value that carries a credential whatever its name.
func credentialValue(value string) bool {
	if value == "" {
		return false
	}
	if strings.Contains(value, "-----BEGIN ") && strings.Contains(value, "PRIVATE KEY") {
		return true
	}
	for _, p := range tokenPrefixes() {
		// A token is its prefix and a long run of token characters; a
		// word that merely starts the same way is not.
		if rest, ok := strings.CutPrefix(value, p); ok && len(rest) >= 16 && tokenChars(rest) {
			return true
		}
	}
	if awsKeyID(value) {
		return true
	}
	lower := strings.ToLower(value)
	for _, field := range []string{"password=", "pwd=", "accountkey=", "sharedaccesskey=", "authorization:"} {
		if strings.Contains(lower, field) {
			return true
		}
	}
	// An HTTP credential as a header value: Bearer <token>, Basic <b64>.
	if strings.HasPrefix(lower, "bearer ") || strings.HasPrefix(lower, "basic ") {
		return true
	}
	return urlWithPassword(value)
}

// awsKeyID is an AWS access key id: AKIA (long-lived) or ASIA (temporary)
// and sixteen upper-case letters and digits.
func awsKeyID(value string) bool {
	if len(value) != 20 || !(strings.HasPrefix(value, "AKIA") || strings.HasPrefix(value, "ASIA")) {
		return false
	}
	return strings.IndexFunc(value[4:], func(r rune) bool { return !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') }) < 0
}

func tokenChars(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	}) < 0
}

// urlWithPassword finds a scheme://user:password@host URL anywhere in the
// value (a proxy, a database, a package index, or a list of them).
func urlWithPassword(value string) bool {
	for _, field := range strings.FieldsFunc(value, func(r rune) bool { return r == ' ' || r == ',' || r == ';' }) {
		if !strings.Contains(field, "://") || !strings.Contains(field, "@") {
			continue
		}
		u, err := url.Parse(field)
		if err != nil {
			// Unparseable but shaped like userinfo with a colon: a
			// password with characters url.Parse rejects.
			_, after, _ := strings.Cut(field, "://")
			userinfo, _, _ := strings.Cut(after, "@")
			if strings.Contains(userinfo, ":") && !strings.Contains(userinfo, "/") {
				return true
			}
			continue
		}
		if pw, ok := u.User.Password(); ok && pw != "" {
			return true
		}
	}
	return false
}

// ScrubEnviron returns environ ("NAME=value" entries) without the
// variables ClassifyEnv withholds, except those named in passthrough
// (compared exactly, as the person wrote them in their config). It is a
// guard against disclosure, not a sandbox: a command running as the same
// user can still read the parent's /proc/<pid>/environ unless the sandbox
// hides it.
func ScrubEnviron(environ, passthrough []string) []string {
	out := make([]string, 0, len(environ))
	gitConfigCut := false
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if slices.Contains(passthrough, name) || ClassifyEnv(name, value) == EnvKept {
			out = append(out, kv)
		} else if strings.HasPrefix(name, "GIT_CONFIG_VALUE_") {
			gitConfigCut = true
		}
	}
	if !gitConfigCut {
		return out
	}
	// git refuses to run when GIT_CONFIG_COUNT promises a value that is
	// missing; without the count it reads none of the set, which is what
	// a set carrying a credential (http.extraHeader) should come to.
	return slices.DeleteFunc(out, func(kv string) bool {
		return strings.HasPrefix(kv, "GIT_CONFIG_COUNT=") || strings.HasPrefix(kv, "GIT_CONFIG_KEY_") || strings.HasPrefix(kv, "GIT_CONFIG_VALUE_")
	})
}
