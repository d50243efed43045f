package tool

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// InputError reports a call whose input does not fit the tool. The call
// never ran; the model reads the message and can try again.
type InputError struct{ Err error }

func (e *InputError) Error() string { return "invalid arguments: " + e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func asInputError(err error) error {
	var ie *InputError
	if errors.As(err, &ie) {
		return err
	}
	return &InputError{Err: err}
}

// userError is an error whose text is written for the model to act on. It
// exists so messages can read as sentences ("No such file: a.go") without
// tripping the lint rule for Go error strings, which is about wrapped
// library errors, not tool results.
type userError struct{ msg string }

func (e *userError) Error() string { return e.msg }

// Failf returns an error whose text is a sentence for the model, such as
// "No such file: a.go". Every tool reports bad calls with it.
func Failf(format string, args ...any) error {
	return &userError{msg: fmt.Sprintf(format, args...)}
}

// ResultCap is the most characters a tool result may carry to the model.
const ResultCap = 30000

// Cap truncates a result to ResultCap characters with a note of how much
// was cut, so one huge output cannot crowd the conversation out.
func Cap(s string) string {
	if len(s) <= ResultCap || utf8.RuneCountInString(s) <= ResultCap {
		return s
	}
	r := []rune(s)
	return string(r[:ResultCap]) + fmt.Sprintf("\n... [truncated %d chars]", len(r)-ResultCap)
}
