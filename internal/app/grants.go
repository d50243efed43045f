package app

// Grants lists the session's `always` grants as "tool pattern" strings, for
// the TUI's /permissions. They live only as long as the session.
func (a *App) Grants() []string {
	if a.rules == nil {
		return nil
	}
	return grantStrings(a.rules.Grants())
}
