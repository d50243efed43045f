// Package hooks runs external hooks: executables a person drops into
// .shiro/hooks/<name>/ (or the user's hooks folder), and the commands of
// Claude Code's settings files, at fixed points of a session. They can
// refuse or rewrite a tool call before it runs (pre_tool), add to what the
// model reads after it (post_tool), refuse or extend a prompt
// (user_prompt), send the model back to work when it stops (stop,
// subagent_stop), or observe a turn, a session or a notification.
//
// Both formats run on one engine (event.go): each hook is verified,
// started in the session's sandbox with its event on stdin, and its answer
// — shiro's JSON reply, or Claude Code's exit status and JSON — is read
// into the same reply, which the event's rules apply.
//
// A hook runs only when the exact bundle on disk, bound to its folder path,
// was approved by the person; anything else about a pre_tool hook — not
// approved, changed, invalid, crashed, slow, or saying something odd —
// blocks the calls it covers. A guard that can fail open is no guard.
//
// The flow: Load discovers the folders and parses their manifests, OpenTrust
// reads the approvals, and a Runner verifies each hook right before it runs
// and executes a private copy of the verified bytes.
package hooks

import "time"

// Kind is the event a hook answers.
type Kind string

const (
	// KindPreTool hooks run before matching tool calls and may refuse them
	// or replace their input.
	KindPreTool Kind = "pre_tool"
	// KindAfterTurn hooks run when a turn ends; their output is ignored.
	KindAfterTurn Kind = "after_turn"
	// KindPostTool hooks run after a matching call succeeded; what they
	// say reaches the model with the call's result.
	KindPostTool Kind = "post_tool"
	// KindUserPrompt hooks run before a prompt reaches the model; they
	// may refuse it or add context to it.
	KindUserPrompt Kind = "user_prompt"
	// KindStop and KindSubagentStop hooks run when the model (or a
	// subagent) ends its turn; a block sends it back to work.
	KindStop         Kind = "stop"
	KindSubagentStop Kind = "subagent_stop"
	// KindSessionStart hooks may add context to the session's first
	// request; KindSessionEnd hooks observe its end.
	KindSessionStart Kind = "session_start"
	KindSessionEnd   Kind = "session_end"
	// KindPreCompact hooks run before the conversation is compacted.
	KindPreCompact Kind = "pre_compact"
	// KindNotification hooks run when shiro waits for the person: an
	// approval, or the next prompt.
	KindNotification Kind = "notification"
)

// Kinds lists every event, in the order the documentation gives them.
func Kinds() []Kind {
	return []Kind{KindPreTool, KindPostTool, KindUserPrompt, KindStop, KindSubagentStop,
		KindAfterTurn, KindSessionStart, KindSessionEnd, KindPreCompact, KindNotification}
}

// toolScoped reports whether hooks of the kind name the tools they cover.
func (k Kind) toolScoped() bool { return k == KindPreTool || k == KindPostTool }

// Origin says which hooks folder a hook came from.
type Origin string

const (
	OriginProject Origin = "project"
	OriginUser    Origin = "user"
)

// State is a hook's standing against the approvals.
type State string

const (
	// StateApproved: the bundle on disk is the one that was approved.
	StateApproved State = "approved"
	// StateChanged: an approval exists, for different bytes.
	StateChanged State = "changed"
	// StatePending: the hook was never approved.
	StatePending State = "pending"
	// StateInvalid: the folder is not a usable hook (see Status.Err).
	StateInvalid State = "invalid"
)

// Hook is one valid hook folder.
type Hook struct {
	Name string
	Kind Kind
	// Dir is the canonical absolute folder path (symlinks resolved). It is
	// bound into the digest and keys the approval.
	Dir string
	// Tools is ["*"] or the tool names the hook covers.
	Tools []string
	// Timeout is the manifest's timeout; zero means the runner's default.
	Timeout time.Duration
	// Digest is the bundle digest (64 hex) when the hook was loaded.
	Digest string
	Origin Origin
}

// Covers reports whether the hook applies to calls of tool.
func (h Hook) Covers(tool string) bool { return coversTool(h.Tools, tool) }

func coversTool(tools []string, tool string) bool {
	for _, t := range tools {
		if t == "*" || t == tool {
			return true
		}
	}
	return false
}

// Limits that keep a hook from exhausting memory or stalling the agent.
const (
	// MaxStdout is the most a hook may print; more blocks the call.
	MaxStdout = 1 << 20
	// stderrTail is how much of a hook's stderr is kept (the end, where
	// errors usually are).
	stderrTail = 4 << 10
	// stderrShown is how many characters of stderr a message quotes.
	stderrShown = 300
	// reasonShown caps a hook's own refusal reason.
	reasonShown = 2000
	// DefaultTimeout applies when the config gives no hookTimeoutMs.
	DefaultTimeout = 5 * time.Second
	// maxBundleFiles and maxBundleBytes bound what is hashed and copied
	// before every run.
	maxBundleFiles = 1000
	maxBundleBytes = 64 << 20
	// maxManifestBytes bounds manifest.json.
	maxManifestBytes = 64 << 10
	// waitDelay is how long, after a hook exits or is killed, its output
	// pipes may stay open (held by a process that escaped the group)
	// before they are closed under it.
	waitDelay = 250 * time.Millisecond
)

// shortDigest is how a digest is shown to people: enough to compare by eye.
func shortDigest(d string) string {
	if len(d) > 12 {
		return d[:12] + "…"
	}
	return d
}
