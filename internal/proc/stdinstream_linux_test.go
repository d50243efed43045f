package proc

import (
	"bufio"
	"context"
	"io"
	"testing"
)

// A command fed through StdinStream reads each line as it is written: the
// second line is written only after the first one's echo came back, which
// a stdin fed all at once could not do.
func TestStdinStreamFeedsAsItArrives(t *testing.T) {
	in, feed := io.Pipe()
	echoed, out := io.Pipe()
	p, err := Start(context.Background(), Spec{
		Argv: []string{"/bin/cat"}, StdinStream: in,
		Stdout: Stream(func(b []byte) { _, _ = out.Write(b) }),
	})
	if err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewReader(echoed)
	for _, line := range []string{"first\n", "second\n"} {
		if _, err := io.WriteString(feed, line); err != nil {
			t.Fatal(err)
		}
		got, err := lines.ReadString('\n')
		if err != nil || got != line {
			t.Fatalf("echo = %q, %v; want %q", got, err, line)
		}
	}
	_ = feed.Close() // the end of the stream closes the command's stdin
	res := p.Wait()
	_ = out.Close()
	if !res.Exit.Success() || res.Stopped != nil {
		t.Fatalf("cat ended with %+v", res)
	}
}
