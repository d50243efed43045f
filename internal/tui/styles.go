package tui

import (
	"charm.land/lipgloss/v2"
)

// styles holds every style the UI uses, so the palette is decided in one
// place. ANSI colour numbers (not hex) keep the terminal's own theme in
// charge, and Bubble Tea downsamples for terminals with fewer colours.
type styles struct {
	user, userBar          lipgloss.Style
	dim, faint, bold       lipgloss.Style
	toolName, toolArg      lipgloss.Style
	ok, fail, denied, warn lipgloss.Style
	notice, errText        lipgloss.Style
	reasoning              lipgloss.Style
	status, statusKey      lipgloss.Style
	banner                 lipgloss.Style
	box, boxTitle          lipgloss.Style
	diffAdd, diffDel       lipgloss.Style
	diffHunk, diffFile     lipgloss.Style
	menuItem, menuSel      lipgloss.Style
	keyHint                lipgloss.Style
}

func newStyles() styles {
	c := lipgloss.Color
	return styles{
		user:      lipgloss.NewStyle().Bold(true),
		userBar:   lipgloss.NewStyle().Foreground(c("6")).Bold(true),
		dim:       lipgloss.NewStyle().Foreground(c("8")),
		faint:     lipgloss.NewStyle().Faint(true),
		bold:      lipgloss.NewStyle().Bold(true),
		toolName:  lipgloss.NewStyle().Foreground(c("5")).Bold(true),
		toolArg:   lipgloss.NewStyle().Foreground(c("7")),
		ok:        lipgloss.NewStyle().Foreground(c("2")),
		fail:      lipgloss.NewStyle().Foreground(c("1")),
		denied:    lipgloss.NewStyle().Foreground(c("1")).Bold(true),
		warn:      lipgloss.NewStyle().Foreground(c("3")),
		notice:    lipgloss.NewStyle().Foreground(c("3")),
		errText:   lipgloss.NewStyle().Foreground(c("1")).Bold(true),
		reasoning: lipgloss.NewStyle().Foreground(c("8")).Italic(true),
		status:    lipgloss.NewStyle().Foreground(c("8")),
		statusKey: lipgloss.NewStyle().Foreground(c("6")),
		banner:    lipgloss.NewStyle().Foreground(c("0")).Background(c("3")).Bold(true).Padding(0, 1),
		box:       lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(c("3")).Padding(0, 1),
		boxTitle:  lipgloss.NewStyle().Foreground(c("3")).Bold(true),
		diffAdd:   lipgloss.NewStyle().Foreground(c("2")),
		diffDel:   lipgloss.NewStyle().Foreground(c("1")),
		diffHunk:  lipgloss.NewStyle().Foreground(c("6")),
		diffFile:  lipgloss.NewStyle().Bold(true),
		menuItem:  lipgloss.NewStyle().Foreground(c("7")),
		menuSel:   lipgloss.NewStyle().Foreground(c("0")).Background(c("6")),
		keyHint:   lipgloss.NewStyle().Foreground(c("6")).Bold(true),
	}
}
