package headless

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/shiro-neko/shiro/internal/fsutil"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// schemaRetries is how many times an answer that fails the schema goes
// back to the model with what failed. One: a model that cannot fix its
// answer when told exactly where it is wrong rarely does on a third try,
// and each try costs a full request.
const schemaRetries = 1

// turnEnd is how a turn ended and its final message.
type turnEnd struct {
	reason protocol.StopReason
	answer string
}

// verdict is the schema check's outcome: the answer that validated, as
// compact JSON, or why the last one did not. Both are empty when no turn
// ended with an answer to check (an error or a limit stopped it; the exit
// code says so).
type verdict struct {
	answer json.RawMessage
	err    error
}

// enforce checks the answer of each turn that ends against the schema,
// and sends the model back with what failed, schemaRetries times.
func enforce(ctx context.Context, schema *Schema, ends <-chan turnEnd, submit func(protocol.Op) error, p *printer) verdict {
	for try := 0; ; try++ {
		var end turnEnd
		select {
		case e, ok := <-ends:
			if !ok {
				return verdict{}
			}
			end = e
		case <-ctx.Done():
			return verdict{}
		}
		if end.reason != protocol.StopEnd {
			return verdict{}
		}
		answer, err := schema.Check(end.answer)
		if err == nil {
			return verdict{answer: answer}
		}
		failed := fmt.Errorf("the final answer does not validate against the JSON Schema in %s: %w", schema.Path, err)
		if try == schemaRetries {
			return verdict{err: fmt.Errorf("%w (after %d retry)", failed, schemaRetries)}
		}
		p.print(protocol.NoticeEvent{Text: failed.Error() + "; asking the model to correct it"})
		fix := "Your final answer does not validate against the required JSON Schema: " + err.Error() +
			". Reply with the corrected answer only: one JSON value that validates, no prose and no code fence."
		if err := submit(protocol.UserTurn{Text: fix}); err != nil {
			return verdict{err: fmt.Errorf("%w; asking the model to correct it failed: %w", failed, err)}
		}
	}
}

// writeLastMessage writes the final answer to path (-o), replacing the
// file whole: a reader sees the old file or the new one, never half.
func writeLastMessage(path, answer string) error {
	if err := fsutil.WriteAtomic(path, []byte(answer), 0o644, fsutil.Options{KeepMode: true}); err != nil {
		return fmt.Errorf("-o/--output-last-message: %w", err)
	}
	return nil
}
