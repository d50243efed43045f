package hooks

import (
	"fmt"
	"time"
)

// Every message a hook can cause is written here, so the documentation can
// list them and they read alike. Block reasons are shown to the person and
// to the model, so each says what happened and what to do.

func approveHint(name string) string {
	return " Review it, then run: shiro hooks approve " + name
}

func hookLabel(name, dir, digest string) string {
	return fmt.Sprintf("hook %q (%s, sha256 %s)", name, dir, shortDigest(digest))
}

func msgNotApproved(name, dir, digest string) string {
	return hookLabel(name, dir, digest) + " is not approved." + approveHint(name)
}

func msgChanged(name, dir, digest string) string {
	return hookLabel(name, dir, digest) + " has changed since it was approved." + approveHint(name)
}

func msgInvalid(name string, err *locatedError) string {
	return fmt.Sprintf("hook %q cannot be used: %s. Fix it (or remove its folder), then approve it again: shiro hooks approve %s", name, err.Error(), name)
}

func msgUnverifiable(name, dir string, err error) string {
	return fmt.Sprintf("hook %q (%s) cannot be verified: %v", name, dir, err)
}

func msgNoTrust(name string, err error) string {
	return fmt.Sprintf("hook %q cannot be checked against the approvals: %v", name, err)
}

func msgStartFailed(name string, err error) string {
	return fmt.Sprintf("hook %q could not be started: %v", name, err)
}

func msgTimedOut(name string, timeout time.Duration) string {
	return fmt.Sprintf("hook %q did not finish within %s and was killed, with everything it started", name, timeout)
}

func msgCanceled(name string) string {
	return fmt.Sprintf("hook %q was stopped because the call was cancelled", name)
}

func msgOverflow(name string) string {
	return fmt.Sprintf("hook %q printed more than %d MiB and was killed", name, MaxStdout>>20)
}

func msgLeftOpen(name string) string {
	return fmt.Sprintf("hook %q left a background process holding its output open; hooks must not leave processes running, so it was killed", name)
}

func msgExited(name string, code int, stderr string) string {
	return fmt.Sprintf("hook %q exited with status %d%s", name, code, stderrSuffix(stderr))
}

func msgSignaled(name, signal, stderr string) string {
	return fmt.Sprintf("hook %q was killed by signal %s%s", name, signal, stderrSuffix(stderr))
}

func msgEmpty(name string) string {
	return fmt.Sprintf(`hook %q printed nothing; a pre_tool hook must print one JSON object, such as {"allow":true}`, name)
}

func msgBadOutput(name string, err error) string {
	return fmt.Sprintf("hook %q printed invalid output: %s", name, printable(err.Error(), reasonShown, false))
}

func msgRefused(name, reason string) string {
	if reason = printable(reason, reasonShown, false); reason == "" {
		reason = "no reason given"
	}
	return fmt.Sprintf("hook %q refused the call: %s", name, reason)
}

func msgNoValidator(name, tool string) string {
	return fmt.Sprintf("hook %q rewrote the input of %s, but no schema check is available for it, so the call is blocked", name, tool)
}

func msgInvalidRewrite(name, tool string, err error) string {
	return fmt.Sprintf("hook %q rewrote the input of %s into something the tool does not accept: %s", name, tool, printable(err.Error(), reasonShown, false))
}

func msgBadInput(tool string, err error) string {
	return fmt.Sprintf("the input of %s is not valid JSON, so no hook can check it: %v", tool, err)
}

func stderrSuffix(stderr string) string {
	if s := printable(stderr, stderrShown, true); s != "" {
		return ": " + s
	}
	return ""
}

func msgRemoved(name, dir string) string {
	return fmt.Sprintf("hook %q (%s) was removed after shiro started, so the calls it covered stay blocked; restart shiro to stop using it", name, dir)
}

func msgChangedDuringCopy(name, dir string) string {
	return fmt.Sprintf("hook %q (%s) changed while it was being prepared to run.", name, dir) + approveHint(name)
}
