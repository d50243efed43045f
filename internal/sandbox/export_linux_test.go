package sandbox

// UseHelpers makes s try programs as its helper, in order, instead of
// the lean helper beside the executable and then itself. Call it before
// anything starts the probe.
func (s *Sandbox) UseHelpers(programs ...string) { s.helpers = programs }

// LeanHelperBeside is leanHelperBeside, for the tests.
func LeanHelperBeside(exe func() (string, error)) (string, bool) { return leanHelperBeside(exe) }
