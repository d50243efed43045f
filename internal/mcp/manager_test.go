package mcp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
)

func TestServerToolsAreOfferedAndCalled(t *testing.T) {
	f := newFixture(t, defs(t, OriginUser, map[string]string{"t": stdioJSON(t, "serve", "")}), nil)
	tools, changed := f.m.Turn(context.Background())
	if !changed {
		t.Fatal("the first turn did not bring the servers' tools")
	}
	echo := tooltest.Named(t, tools, "mcp__t__echo")
	info := echo.Info()
	if info.Effect != tool.Runs || info.Effect.Default() != "ask" {
		t.Errorf("a server tool's effect is %s (default %s); readOnlyHint must not loosen the default ask", info.Effect, info.Effect.Default())
	}
	if !strings.Contains(string(info.Schema), `"message"`) || strings.Contains(string(info.Schema), "$schema") {
		t.Errorf("schema on the wire = %s", info.Schema)
	}
	out, err := invoke(t, echo, `{"message":"hello"}`)
	if err != nil || out != "echo: hello" {
		t.Fatalf("echo = %q, %v", out, err)
	}
	if _, changed := f.m.Turn(context.Background()); changed {
		t.Error("a turn with nothing new rebuilt the tools")
	}
	st := f.status("t")
	if st.State != StateReady || st.Tools != len(tools) || st.SchemaBytes == 0 || st.Prompts != 1 || !st.Resources {
		t.Errorf("status = %+v", st)
	}
}

func TestServerToolInputIsCheckedAgainstItsSchema(t *testing.T) {
	f := newFixture(t, defs(t, OriginUser, map[string]string{"t": stdioJSON(t, "serve", "")}), nil)
	tools, _ := f.m.Turn(context.Background())
	echo := tooltest.Named(t, tools, "mcp__t__echo")
	for input, want := range map[string]string{
		`{}`:                            "message",
		`{"message": 3}`:                "message",
		`{"message":"a","message":"b"}`: "duplicate",
		`[1]`:                           "JSON object",
	} {
		_, err := echo.Prepare([]byte(input))
		var ie *tool.InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), want) {
			t.Errorf("Prepare(%s) = %v, want an input error about %s", input, err, want)
		}
	}
	p, err := echo.Prepare([]byte(`{"message":"hi","extra":null}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(p.Input()) != `{"message":"hi"}` {
		t.Errorf("a null member was not dropped from the judged input: %s", p.Input())
	}
	if p.Plan().Title != "hi" {
		t.Errorf("title = %q", p.Plan().Title)
	}
}

func TestResultsAreRenderedAsTextAndCapped(t *testing.T) {
	f := newFixture(t, defs(t, OriginUser, map[string]string{"t": stdioJSON(t, "serve", "")}), nil)
	tools, _ := f.m.Turn(context.Background())
	out, err := invoke(t, tooltest.Named(t, tools, "mcp__t__mixed"), `{}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"here it is",
		"[image image/png, 2.0 KB: not shown, since tool results reach the model as text only]",
		"[resource link test://doc (doc), text/plain] the document",
		"[resource test://inline, text/plain]\ninline body",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("mixed result lacks %q:\n%s", want, out)
		}
	}
	out, err = invoke(t, tooltest.Named(t, tools, "mcp__t__structured"), `{}`)
	if err != nil || !strings.Contains(out, `{"answer":42}`) {
		t.Errorf("structured = %q, %v", out, err)
	}
	out, err = invoke(t, tooltest.Named(t, tools, "mcp__t__big"), `{}`)
	if err != nil || len(out) > tool.ResultCap+100 || !strings.Contains(out, "[truncated 10000 chars]") {
		t.Errorf("a 40000-character result came back as %d characters ending %q", len(out), out[max(0, len(out)-40):])
	}
	_, err = invoke(t, tooltest.Named(t, tools, "mcp__t__fail"), `{}`)
	if err == nil || err.Error() != "it went wrong" {
		t.Errorf("a failed call reads %v", err)
	}
}

func TestUnapprovedProjectServerIsNotStarted(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "started")
	ds := defs(t, OriginProject, map[string]string{"proj": stdioJSON(t, "serve", marker)})
	f := newFixture(t, ds, nil)
	tools, _ := f.m.Turn(context.Background())
	if len(tools) != 0 {
		t.Errorf("an unapproved server's tools were offered: %d", len(tools))
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("an unapproved project server was started")
	}
	st := f.status("proj")
	if st.State != StateNotApproved || !strings.Contains(st.Error, "shiro mcp approve proj") {
		t.Errorf("status = %+v", st)
	}
	if err := f.m.Approve("proj", ds[0].Digest); err != nil {
		t.Fatal(err)
	}
	tools, changed := f.m.Turn(context.Background())
	if !changed || len(tools) == 0 {
		t.Fatal("an approved server did not start at the next turn")
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("the approved server was not started")
	}
}

func TestChangedDefinitionAsksAgain(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "started")
	before := defs(t, OriginProject, map[string]string{"proj": stdioJSON(t, "serve", marker)})
	after := defs(t, OriginProject, map[string]string{"proj": stdioJSON(t, "serve", marker, "--extra")})
	if before[0].Digest == after[0].Digest {
		t.Fatal("a changed definition kept its digest")
	}
	f := newFixture(t, after, nil)
	if err := f.m.trust.Approve(f.root, "proj", before[0].Digest, time.Now()); err != nil {
		t.Fatal(err)
	}
	f.m.Turn(context.Background())
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a server whose definition changed since approval was started")
	}
	st := f.status("proj")
	if st.State != StateChanged || !strings.Contains(st.Error, "changed since you approved it") {
		t.Errorf("status = %+v", st)
	}
	review := f.m.Review()
	if len(review) != 1 || review[0].Name != "proj" || review[0].Digest != after[0].Digest || !review[0].Changed {
		t.Errorf("review = %+v", review)
	}
}

func TestServerThatCrashesMidCall(t *testing.T) {
	f := newFixture(t, defs(t, OriginUser, map[string]string{"t": stdioJSON(t, "serve", "")}), nil)
	tools, _ := f.m.Turn(context.Background())
	_, err := invoke(t, tooltest.Named(t, tools, "mcp__t__crash"), `{}`)
	if err == nil || !strings.Contains(err.Error(), "MCP server t stopped (exit status 7; its last words on stderr: boom: the disk caught fire)") {
		t.Fatalf("crash mid-call = %v", err)
	}
	if n := f.notices.all(); len(n) != 1 || !strings.Contains(n[0], "MCP server t stopped") {
		t.Errorf("notices = %q, want the crash reported once", n)
	}
	echo := tooltest.Named(t, tools, "mcp__t__echo")
	_, err = invoke(t, echo, `{"message":"again"}`)
	if err == nil || !strings.Contains(err.Error(), "shiro starts it again in 1s") {
		t.Fatalf("a call during the backoff = %v", err)
	}
	if len(f.notices.all()) != 1 {
		t.Errorf("the crash was reported again: %q", f.notices.all())
	}
	if st := f.status("t"); st.State != StateStopped {
		t.Errorf("state after a crash = %s", st.State)
	}
	f.clock.Advance(time.Second)
	out, err := invoke(t, echo, `{"message":"again"}`)
	if err != nil || out != "echo: again" {
		t.Fatalf("after the backoff the server was not started again: %q, %v", out, err)
	}
}

func TestServerThatHangsAtStart(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "pid")
	ds := defs(t, OriginUser, map[string]string{
		"slow": stdioJSON(t, "hang", marker),
		"t":    stdioJSON(t, "serve", ""),
	})
	f := newFixture(t, ds, func(o *Options) { o.StartTimeout = 500 * time.Millisecond })
	f.m.servers[1].def.StartTimeout = 20 * time.Second // only slow is held to the short timeout
	tools, _ := f.m.Turn(context.Background())
	tooltest.Named(t, tools, "mcp__t__echo") // the other server is unaffected
	st := f.status("slow")
	if st.State != StateFailed || !strings.Contains(st.Error, "did not answer within 500ms") {
		t.Fatalf("status = %+v", st)
	}
	b, err := os.ReadFile(marker)
	if err != nil {
		t.Fatal("the hanging server never ran:", err)
	}
	pid, _ := strconv.Atoi(string(b))
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the server that hung at start is still running (pid %d): %v", pid, err)
	}
}

func TestServerThatExitsAtStartSaysWhy(t *testing.T) {
	f := newFixture(t, defs(t, OriginUser, map[string]string{"bad": stdioJSON(t, "exit", "")}), nil)
	f.m.Turn(context.Background())
	st := f.status("bad")
	if st.State != StateFailed || !strings.Contains(st.Error, "exit status 3") || !strings.Contains(st.Error, "cannot open the database") {
		t.Fatalf("status = %+v", st)
	}
	log, err := os.ReadFile(st.Log)
	if err != nil || !strings.Contains(string(log), "cannot open the database") {
		t.Errorf("the server's stderr is not in its log %s: %q, %v", st.Log, log, err)
	}
}

func TestMetaModeOverBudget(t *testing.T) {
	f := newFixture(t, defs(t, OriginUser, map[string]string{"t": stdioJSON(t, "serve", "")}), func(o *Options) { o.Budget = 200 })
	tools, _ := f.m.Turn(context.Background())
	offered := tool.Filter{Sets: tool.DefaultSets()}
	var names []string
	for _, tl := range tools {
		if offered.Offers(tl.Info()) {
			names = append(names, tl.Info().Name)
		}
	}
	if strings.Join(names, ",") != SearchToolName+","+CallToolName {
		t.Fatalf("over the budget the session is offered %v", names)
	}
	if !f.m.Status().Meta {
		t.Error("the report does not say meta mode is on")
	}
	out, err := invoke(t, tooltest.Named(t, tools, SearchToolName), `{"query":"echo message"}`)
	if err != nil || !strings.Contains(out, "## mcp__t__echo") || !strings.Contains(out, `"message"`) {
		t.Fatalf("search = %q, %v", out, err)
	}
	call := tooltest.Named(t, tools, CallToolName)
	p, err := call.Prepare([]byte(`{"tool":"mcp__t__echo","arguments":{"message":"through the meta tool"}}`))
	if err != nil {
		t.Fatal(err)
	}
	fw, ok := p.(interface {
		Forward() (tool.Tool, tool.Prepared, error)
	})
	if !ok {
		t.Fatal("an mcp_call call does not forward")
	}
	target, real, err := fw.Forward()
	if err != nil || target.Info().Name != "mcp__t__echo" {
		t.Fatalf("forward = %v, %v", target, err)
	}
	res, err := real.Run(context.Background(), tool.Runtime{})
	if err != nil || res.Output != "echo: through the meta tool" {
		t.Errorf("forwarded call = %q, %v", res.Output, err)
	}
	if _, err := p.Run(context.Background(), tool.Runtime{}); err == nil {
		t.Error("mcp_call ran by itself, past the gate")
	}
	if _, err := call.Prepare([]byte(`{"tool":"mcp__t__nope"}`)); err == nil {
		t.Error("mcp_call accepted an unknown tool")
	}

	under := newFixture(t, defs(t, OriginUser, map[string]string{"t": stdioJSON(t, "serve", "")}), nil)
	tools, _ = under.m.Turn(context.Background())
	tooltest.Named(t, tools, "mcp__t__echo")
	for _, tl := range tools {
		if n := tl.Info().Name; n == SearchToolName || n == CallToolName {
			t.Errorf("under the budget the meta tool %s is offered", n)
		}
	}
}

func TestToolListChangedTakesEffectAtTheNextTurn(t *testing.T) {
	f := newFixture(t, defs(t, OriginUser, map[string]string{"t": stdioJSON(t, "serve", "")}), nil)
	stale := make(chan struct{}, 1)
	f.m.staleHook = func() {
		select {
		case stale <- struct{}{}:
		default:
		}
	}
	tools, _ := f.m.Turn(context.Background())
	if _, err := invoke(t, tooltest.Named(t, tools, "mcp__t__grow"), `{}`); err != nil {
		t.Fatal(err)
	}
	<-stale
	tools, changed := f.m.Turn(context.Background())
	if !changed {
		t.Fatal("the tool list change was not picked up at the turn boundary")
	}
	out, err := invoke(t, tooltest.Named(t, tools, "mcp__t__extra"), `{}`)
	if err != nil || out != "extra ran" {
		t.Errorf("extra = %q, %v", out, err)
	}
}

func TestCloseStopsStdioServers(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "pid")
	f := newFixture(t, defs(t, OriginUser, map[string]string{"t": stdioJSON(t, "serve", marker)}), nil)
	f.m.Turn(context.Background())
	b, err := os.ReadFile(marker)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(string(b))
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("the server is not running before Close: %v", err)
	}
	f.m.Close()
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the server outlived Close (pid %d): %v", pid, err)
	}
	if n := f.notices.all(); len(n) != 0 {
		t.Errorf("a deliberate stop was reported as a crash: %q", n)
	}
}
