package prompt

// Reversioned is a builder over b's sources whose notebook and overview
// parts report the versions given, so that a benchmark can mark them
// changed without rewriting the task list or the workspace.
func Reversioned(b *Builder, notebook, overview func() uint64) *Builder {
	src := b.src
	src.Notebook.Version, src.Overview.Version = notebook, overview
	return NewBuilder(src)
}
