package shellguard

// Effective returns every simple command src would run after unwrapping wrappers
// (sudo, env, nohup, timeout, nice, command, builtin, exec, xargs, busybox, setsid, stdbuf, …)
// and recursing into sh/bash/zsh -c, eval, find -exec; with a non-nil error when src cannot be
// analysed (parse error, non-literal command name, dynamic -c script), which callers treat as a block.
// It analyses src from scratch: a caller that also needs anything else
// about the line should call Analyze once and read it all from there.
func Effective(src string) ([]Command, error) {
	return Analyze(src).Effective()
}
