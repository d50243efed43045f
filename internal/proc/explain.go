package proc

// Explainer is a Launcher that can tell, from how a command ended and the
// end of its output, that its confinement may be why it failed, and how
// to allow what was denied. An OS sandbox has no other way to say so:
// the kernel only tells the command (EACCES, EROFS, ECONNREFUSED), and
// the command words it as it likes.
type Explainer interface {
	Launcher
	// Explain returns one line for the person and the model, or "" when
	// nothing points at the confinement. output holds the last bytes of
	// the command's stderr followed by the last bytes of its stdout. It
	// is called once for every command the launcher launched that
	// started, however it ended (stopped too), after its output ended.
	Explain(exit Exit, output []byte) string
}

// tailKeep is how much of the end of each output stream an Explainer is
// shown: error messages are printed last.
const tailKeep = 4 << 10

// outputTap keeps the end of a command's output for its Explainer, and
// appends the Explainer's line to the command's stderr (to stdout when
// stderr goes there, nowhere when stderr is discarded).
type outputTap struct {
	explainer      Explainer
	stdout, stderr tail
	tell           Stream // where the line goes; nil: nowhere
	told           *tail  // what tell received so far
}

// tapOutput puts a tap in front of spec's output streams.
func tapOutput(spec *Spec, ex Explainer) *outputTap {
	t := &outputTap{explainer: ex}
	if sink, ok := spec.Stdout.(Stream); ok && sink != nil {
		spec.Stdout = Stream(func(p []byte) { t.stdout.add(p); sink(p) })
		if _, merged := spec.Stderr.(SameAsStdout); merged {
			t.tell, t.told = sink, &t.stdout
		}
	}
	if sink, ok := spec.Stderr.(Stream); ok && sink != nil {
		spec.Stderr = Stream(func(p []byte) { t.stderr.add(p); sink(p) })
		t.tell, t.told = sink, &t.stderr
	}
	return t
}

// explain asks the Explainer about a command whose output has ended (no
// stream calls a sink any more, so the tails are settled and the sink may
// be called from here) and passes its line on.
func (t *outputTap) explain(exit Exit) (string, *Refusal) {
	output := append(append([]byte(nil), t.stderr.bytes()...), t.stdout.bytes()...)
	var refusal *Refusal
	if r, ok := t.explainer.(Refuser); ok {
		refusal = r.Refused(exit, output)
	}
	line := t.explainer.Explain(exit, output)
	if line != "" && t.tell != nil {
		text := line + "\n"
		if b := t.told.bytes(); len(b) > 0 && b[len(b)-1] != '\n' {
			text = "\n" + text
		}
		t.tell([]byte(text))
	}
	return line, refusal
}

// tail keeps the last tailKeep bytes written to it. Each stream's tail is
// written only by that stream's reader.
type tail struct{ buf []byte }

func (t *tail) add(p []byte) {
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - tailKeep; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
}

func (t *tail) bytes() []byte { return t.buf }
