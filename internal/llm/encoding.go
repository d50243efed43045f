package llm

import "sync"

// encodings is the memo of a sealed message: one encoding per wire format.
// A message rarely meets more than one or two wires, so a short list beats
// a map.
type encodings struct {
	mu   sync.Mutex
	keys []string
	vals []any
}

// Sealed returns m ready to be kept in a history. From now on the message
// must not change (build a new one instead): its copies share a memo of
// its wire encodings, so that an adapter encodes it once, when it first
// goes out, and every later request that carries it reuses those bytes.
// That is what keeps the cost of a step independent of the length of the
// history. Sealing a sealed message returns it as it is.
func (m Message) Sealed() Message {
	if m.enc == nil {
		m.enc = &encodings{}
	}
	return m
}

// Forget drops the encodings memoised for m and its copies, for a message
// that will not go out as it is again: a pruned history sends a shorter
// form in its place, and m's own encoding (as long as its text) would be
// kept for nothing. Should m go out after all, it is encoded again, to the
// same bytes.
func (m Message) Forget() {
	if m.enc == nil {
		return
	}
	m.enc.mu.Lock()
	defer m.enc.mu.Unlock()
	m.enc.keys, m.enc.vals = nil, nil
}

// IsSealed reports whether m carries a memo of its encodings.
func (m Message) IsSealed() bool { return m.enc != nil }

// Encode returns encode(m), computed once per sealed message and key: key
// names the wire format, and one key must always go with one encode
// function and one type T. A message that is not sealed is encoded on
// every call. Failures are not memoised.
func Encode[T any](m Message, key string, encode func(Message) (T, error)) (T, error) {
	if m.enc == nil {
		return encode(m)
	}
	e := m.enc
	e.mu.Lock()
	defer e.mu.Unlock()
	slot := -1
	for i, k := range e.keys {
		if k == key {
			if v, ok := e.vals[i].(T); ok {
				return v, nil
			}
			slot = i // the same key with another type: replace it
		}
	}
	v, err := encode(m)
	if err != nil {
		return v, err
	}
	if slot >= 0 {
		e.vals[slot] = v
	} else {
		e.keys = append(e.keys, key)
		e.vals = append(e.vals, v)
	}
	return v, nil
}
