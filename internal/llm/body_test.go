package llm_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/shiro-neko/shiro/internal/llm"
)

// A body reads back as its literals and pieces in the order they were
// added, whatever the size of the reads; literals added after a piece
// never overwrite the ones before it, and the pieces are not copied.
func TestBodyReadsItsPiecesInOrder(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789"), 10_000)
	var b llm.Body
	b.Piece([]byte(`{"model":"m"`))
	b.Literal(`,"messages":[`)
	b.Piece(big)
	b.Literal(",")
	b.Piece(nil)
	b.Piece([]byte(`"x"`))
	b.Literal("]")
	b.Literal(`,"stream":true}`)
	want := `{"model":"m","messages":[` + string(big) + `,"x"],"stream":true}`
	if b.Len() != len(want) {
		t.Fatalf("Len %d, want %d", b.Len(), len(want))
	}
	if got := b.Bytes(); string(got) != want {
		t.Fatalf("Bytes differ from the pieces joined:\n%.200s", got)
	}
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/", nil)
	b.Attach(req)
	if err := iotest.TestReader(req.Body, []byte(want)); err != nil {
		t.Fatal(err)
	}
	if req.ContentLength != int64(len(want)) || req.Header.Get("Content-Type") != "application/json" || req.GetBody != nil {
		t.Fatalf("length %d, type %q, GetBody set %v", req.ContentLength, req.Header.Get("Content-Type"), req.GetBody != nil)
	}
	// Attaching again (an SDK middleware runs per attempt) starts over.
	b.Attach(req)
	if got, _ := io.ReadAll(req.Body); string(got) != want {
		t.Fatal("a second Attach does not read the body from its start")
	}
}

// Bodies sent through Attach arrive whole over a real connection, also
// when several requests that share pieces are in flight at once.
func TestAttachedBodiesArriveWhole(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ := io.ReadAll(r.Body)
		if r.Header.Get("Content-Type") != "application/json" || r.ContentLength != int64(len(got)) {
			http.Error(w, "bad headers", http.StatusBadRequest)
			return
		}
		_, _ = w.Write(got)
	}))
	t.Cleanup(srv.Close)
	shared := bytes.Repeat([]byte("x"), 50_000)
	var wg sync.WaitGroup
	for worker := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				var body llm.Body
				body.Literal(fmt.Sprintf(`{"worker":%d,"request":%d,"pad":"`, worker, i))
				body.Piece(shared[:1000*i])
				body.Literal(`"}`)
				want := fmt.Appendf(nil, `{"worker":%d,"request":%d,"pad":"%s"}`, worker, i, shared[:1000*i])
				req, _ := http.NewRequest(http.MethodPost, srv.URL, nil)
				body.Attach(req)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				echo, _ := io.ReadAll(res.Body)
				_ = res.Body.Close()
				if res.StatusCode != http.StatusOK || !bytes.Equal(echo, want) {
					t.Errorf("worker %d request %d: status %d, body changed on the way", worker, i, res.StatusCode)
					return
				}
			}
		}()
	}
	wg.Wait()
}
