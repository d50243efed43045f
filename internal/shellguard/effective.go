package shellguard

// Effective returns every simple command src would run after unwrapping wrappers
// (sudo, env, nohup, timeout, nice, command, builtin, exec, xargs, busybox, setsid, stdbuf, …)
// and recursing into sh/bash/zsh -c, eval, find -exec; with a non-nil error when src cannot be
// analysed (parse error, non-literal command name, dynamic -c script), which callers treat as a block.
func Effective(src string) ([]Command, error) {
	a := newAnalysis(src, true, false)
	a.run()
	if a.err != nil {
		return nil, a.err
	}
	return a.commands, nil
}
