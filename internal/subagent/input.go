package subagent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// MaxBatch is the most briefs one task call may carry; they all run at once.
const MaxBatch = 8

// brief is one job for one subagent.
type brief struct {
	Description string `json:"description"`
	Prompt      string `json:"prompt"`
}

// request is a decoded task call: one brief, or a batch of them, all of one
// kind.
type request struct {
	Kind   Kind
	Briefs []brief
	// Batch is true when the call used tasks, so the reports are headed by
	// their descriptions even when there is only one.
	Batch bool
}

// parseInput decodes and checks a task call. Its errors say what to send
// instead, since the model reads them.
func parseInput(raw json.RawMessage) (request, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage(`{}`)
	}
	var in struct {
		Description *string           `json:"description"`
		Prompt      *string           `json:"prompt"`
		Kind        *string           `json:"kind"`
		Tasks       []json.RawMessage `json:"tasks"`
	}
	if err := strictDecode(raw, &in); err != nil {
		return request{}, err
	}
	req := request{Kind: Explore}
	if in.Kind != nil {
		k, err := parseKind(*in.Kind)
		if err != nil {
			return request{}, err
		}
		req.Kind = k
	}
	single := in.Description != nil || in.Prompt != nil
	switch {
	case single && in.Tasks != nil:
		return request{}, errors.New("give either description and prompt for one task, or tasks for a batch, not both")
	case in.Tasks != nil:
		briefs, err := parseBatch(in.Tasks)
		if err != nil {
			return request{}, err
		}
		req.Briefs, req.Batch = briefs, true
	case single:
		b, err := checkBrief(brief{Description: deref(in.Description), Prompt: deref(in.Prompt)}, "")
		if err != nil {
			return request{}, err
		}
		req.Briefs = []brief{b}
	default:
		return request{}, errors.New("give description and prompt for one task, or tasks (1 to 8 of them) for a batch")
	}
	return req, nil
}

func parseBatch(items []json.RawMessage) ([]brief, error) {
	if len(items) == 0 {
		return nil, errors.New("tasks is empty: give 1 to 8 briefs")
	}
	if len(items) > MaxBatch {
		return nil, fmt.Errorf("tasks holds %d briefs; a batch takes at most %d, so split it", len(items), MaxBatch)
	}
	briefs := make([]brief, len(items))
	for i, item := range items {
		where := fmt.Sprintf("tasks[%d]: ", i)
		var b brief
		if err := strictDecode(item, &b); err != nil {
			if strings.Contains(err.Error(), `"kind"`) {
				return nil, fmt.Errorf("%skind applies to the whole batch: put it next to tasks, not inside a task", where)
			}
			return nil, fmt.Errorf("%s%w", where, err)
		}
		checked, err := checkBrief(b, where)
		if err != nil {
			return nil, err
		}
		briefs[i] = checked
	}
	return briefs, nil
}

// checkBrief trims a brief and refuses an empty part.
func checkBrief(b brief, where string) (brief, error) {
	b.Description = strings.TrimSpace(b.Description)
	b.Prompt = strings.TrimSpace(b.Prompt)
	if b.Description == "" {
		return b, fmt.Errorf("%sdescription is empty: give a few words naming the job", where)
	}
	if b.Prompt == "" {
		return b, fmt.Errorf("%sprompt is empty: give the subagent a complete brief, since it sees nothing else", where)
	}
	return b, nil
}

func parseKind(s string) (Kind, error) {
	switch k := Kind(strings.TrimSpace(s)); k {
	case Explore, Review, Worker:
		return k, nil
	case "":
		return Explore, nil
	}
	return "", fmt.Errorf("unknown kind %q: use explore, review or worker", s)
}

// strictDecode decodes one JSON object, refusing unknown fields so that a
// misspelt field (task for tasks) is reported instead of ignored.
func strictDecode(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("invalid arguments: %w", err)
	}
	if dec.More() {
		return errors.New("invalid arguments: more than one JSON value")
	}
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
