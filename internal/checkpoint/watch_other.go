//go:build !linux

package checkpoint

// watcher is inotify's on Linux. Elsewhere there is none yet, and every
// snapshot walks the workspace (docs/checkpoints.md says so).
type watcher struct{}

func newWatcher() *watcher                  { return nil }
func (w *watcher) add(abs, rel string)      {}
func (w *watcher) watching(rel string) bool { return false }
func (w *watcher) drain() ([]string, bool)  { return nil, false }
func (w *watcher) close()                   {}
