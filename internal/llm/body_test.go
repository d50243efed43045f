package llm_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
)

func TestBodyPoolReusesBuffers(t *testing.T) {
	var p llm.BodyPool
	b := p.Get(100)
	if cap(b) < 100 || len(b) != 0 {
		t.Fatalf("len %d cap %d", len(b), cap(b))
	}
	first := &b[:1][0]
	p.Put(append(b, "x"...))
	again := p.Get(50)
	if &again[:1][0] != first || len(again) != 0 {
		t.Fatal("a returned buffer that is big enough was not reused")
	}
	if bigger := p.Get(10 * cap(b)); cap(bigger) < 10*cap(b) {
		t.Fatalf("cap %d", cap(bigger))
	}
}

// Bodies sent through Attach arrive whole, also when several requests are
// in flight and their buffers go round the pool; each goes back once the
// transport has sent it.
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
	var pool llm.BodyPool
	var wg sync.WaitGroup
	for worker := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				want := fmt.Appendf(nil, `{"worker":%d,"request":%d,"pad":"%s"}`, worker, i, bytes.Repeat([]byte("x"), 1000*i))
				body := append(pool.Get(len(want)), want...)
				req, _ := http.NewRequest(http.MethodPost, srv.URL, nil)
				pool.Attach(req, body)
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
