package secrets_test

import (
	"slices"
	"testing"

	"github.com/shiro-neko/shiro/internal/secrets"
)

// The names people really have in their environment: what goes and what a
// build needs to keep.
func TestClassifyEnvByName(t *testing.T) {
	withheld := map[string]secrets.EnvKind{
		"GITHUB_TOKEN": secrets.EnvCredentialName, "GH_TOKEN": secrets.EnvCredentialName, "HF_TOKEN": secrets.EnvCredentialName,
		"AWS_SECRET_ACCESS_KEY": secrets.EnvCredentialName, "AWS_SESSION_TOKEN": secrets.EnvCredentialName,
		"AWS_ACCESS_KEY_ID": secrets.EnvCredentialName, "NPM_TOKEN": secrets.EnvCredentialName,
		"NPM_CONFIG__AUTH": secrets.EnvCredentialName, "npm_config__authToken": secrets.EnvCredentialName,
		"PGPASSWORD": secrets.EnvCredentialName, "MYSQL_PWD": secrets.EnvCredentialName, "DB_PASS": secrets.EnvCredentialName,
		"SSHPASS": secrets.EnvCredentialName, "GIT_ASKPASS": secrets.EnvCredentialName, "SSH_ASKPASS": secrets.EnvCredentialName,
		"SENTRY_AUTH_TOKEN": secrets.EnvCredentialName, "SENTRY_DSN": secrets.EnvCredentialName,
		"DOCKER_AUTH_CONFIG": secrets.EnvCredentialName, "GITHUB_OAUTH": secrets.EnvCredentialName,
		"ANTHROPIC_API_KEY": secrets.EnvCredentialName, "openai_api_key": secrets.EnvCredentialName, "API_KEY": secrets.EnvCredentialName,
		"ANTHROPIC_AUTH_TOKEN": secrets.EnvCredentialName, "OPENAI_APIKEY": secrets.EnvCredentialName,
		"GOOGLE_APPLICATION_CREDENTIALS": secrets.EnvCredentialName, "DJANGO_SECRET_KEY": secrets.EnvCredentialName,
		"SSH_PRIVATE_KEY": secrets.EnvCredentialName, "BW_SESSION": secrets.EnvCredentialName, "OP_SESSION_my": secrets.EnvCredentialName,
		"GPG_PASSPHRASE": secrets.EnvCredentialName, "SESSION_COOKIE": secrets.EnvCredentialName, "CI_JOB_JWT": secrets.EnvCredentialName,
		"SLACK_WEBHOOK_URL": secrets.EnvCredentialName, "GITHUB_PAT": secrets.EnvCredentialName, "KRB5CCNAME": secrets.EnvCredentialName,
		"TMUX": secrets.EnvServer, "TMUX_PANE": secrets.EnvServer, "STY": secrets.EnvServer, "SSH_AUTH_SOCK": secrets.EnvServer,
		"SSH_AGENT_PID": secrets.EnvServer, "GPG_AGENT_INFO": secrets.EnvServer, "DBUS_SESSION_BUS_ADDRESS": secrets.EnvServer,
		"DOCKER_HOST": secrets.EnvServer, "XDG_RUNTIME_DIR": secrets.EnvServer, "DISPLAY": secrets.EnvServer,
		"WAYLAND_DISPLAY": secrets.EnvServer, "XAUTHORITY": secrets.EnvServer, "KITTY_LISTEN_ON": secrets.EnvServer,
		"WEZTERM_UNIX_SOCKET": secrets.EnvServer, "SWAYSOCK": secrets.EnvServer, "NVIM": secrets.EnvServer,
		"VSCODE_GIT_IPC_HANDLE": secrets.EnvServer, "VSCODE_IPC_HOOK_CLI": secrets.EnvServer, "ZELLIJ": secrets.EnvServer,
		"MY_AGENT_SOCKET": secrets.EnvServer,
	}
	for name, want := range withheld {
		if got := secrets.ClassifyEnv(name, "x"); got != want {
			t.Errorf("ClassifyEnv(%q) = %v, want %v", name, got, want)
		}
		if !secrets.IsEnvVar(name) {
			t.Errorf("IsEnvVar(%q) = false", name)
		}
	}
	kept := []string{
		"PATH", "HOME", "USER", "LOGNAME", "SHELL", "PWD", "OLDPWD", "TERM", "COLORTERM", "LANG", "LC_ALL", "TZ", "TMPDIR",
		"KEYTIMEOUT", "KEYMAP", "API_KEYS_DIR", "TOKENIZERS_PARALLELISM", "EDITOR", "PAGER", "SHLVL", "HOSTNAME",
		"GOPATH", "GOFLAGS", "GOCACHE", "GOMODCACHE", "GOPROXY", "GOPRIVATE", "GONOSUMDB", "GOTOOLCHAIN", "CGO_ENABLED",
		"CARGO_HOME", "RUSTUP_HOME", "RUSTFLAGS", "JAVA_HOME", "NODE_OPTIONS", "NODE_PATH", "NODE_EXTRA_CA_CERTS",
		"PYTHONPATH", "VIRTUAL_ENV", "CONDA_PREFIX", "PIP_INDEX_URL", "SSL_CERT_FILE", "SSL_CERT_DIR",
		"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
		"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "CI", "GITHUB_ACTIONS", "GITHUB_SHA", "GITHUB_REF", "RUNNER_OS",
		"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "MAKEFLAGS", "CC", "CFLAGS", "LDFLAGS",
		"PKG_CONFIG_PATH", "LD_LIBRARY_PATH", "MANPATH", "LESS", "KUBECONFIG", "DOCKER_CONFIG", "PASSENGER_APP_ENV",
	}
	for _, name := range kept {
		if got := secrets.ClassifyEnv(name, "/usr/local/bin"); got != secrets.EnvKept {
			t.Errorf("ClassifyEnv(%q) = %v, want it kept", name, got)
		}
	}
}

// A credential under an innocent name is recognised by its value.
func TestClassifyEnvByValue(t *testing.T) {
	for value, want := range map[string]secrets.EnvKind{
		"postgres://app:hunter2@db.internal:5432/app":                                    secrets.EnvCredentialValue,
		"http://user:pa%40ss@proxy:3128":                                                 secrets.EnvCredentialValue,
		"https://pypi.org/simple https://me:tok@private.example/simple":                  secrets.EnvCredentialValue,
		"redis://:s3cret@cache:6379/0":                                                   secrets.EnvCredentialValue,
		"Server=db;Database=app;User Id=sa;Password=hunter2;":                            secrets.EnvCredentialValue,
		"DefaultEndpointsProtocol=https;AccountName=a;AccountKey=abc==":                  secrets.EnvCredentialValue,
		"ghp_0123456789abcdefghijABCDEFGHIJ012345":                                       secrets.EnvCredentialValue,
		"github_pat_11AAAAAAA0123456789_abcdefghijklmnop":                                secrets.EnvCredentialValue,
		"AKIAIOSFODNN7EXAMPLE":                                                           secrets.EnvCredentialValue,
		"-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n-----END OPENSSH PRIVATE KEY-----": secrets.EnvCredentialValue,
		"unix:///run/user/1000/docker.sock":                                              secrets.EnvServer,
		"unix:path=/run/user/1000/bus":                                                   secrets.EnvServer,
		"https://user@github.com/o/r.git":                                                secrets.EnvKept, // no password
		"http://proxy.internal:3128":                                                     secrets.EnvKept,
		"ghp_":                                                                           secrets.EnvKept,
		"ASIA_PACIFIC_REGION":                                                            secrets.EnvKept,
		"hf_hub_offline":                                                                 secrets.EnvKept,
		"/home/me/go":                                                                    secrets.EnvKept,
		"":                                                                               secrets.EnvKept,
	} {
		if got := secrets.ClassifyEnv("SOME_SETTING", value); got != want {
			t.Errorf("ClassifyEnv(SOME_SETTING, %q) = %v, want %v", value, got, want)
		}
	}
}

// ScrubEnviron keeps what is kept and what the person passes through, by
// exact name, and nothing else.
func TestScrubEnviron(t *testing.T) {
	in := []string{
		"PATH=/usr/bin", "GITHUB_TOKEN=ghp_x", "NPM_TOKEN=npm_y", "TMUX=/tmp/tmux-1000/default,42,0",
		"DATABASE_URL=postgres://u:p@db/x", "HOME=/home/me", "npm_token=z", "EMPTY=", "NOEQUALS",
	}
	got := secrets.ScrubEnviron(in, []string{"NPM_TOKEN"})
	want := []string{"PATH=/usr/bin", "NPM_TOKEN=npm_y", "HOME=/home/me", "EMPTY=", "NOEQUALS"}
	if !slices.Equal(got, want) {
		t.Errorf("ScrubEnviron = %q, want %q", got, want)
	}
}
