package acp

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/coder/acp-go-sdk"

	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// JSON-RPC error codes the handlers answer with.
const (
	codeInvalidParams = -32602
	codeInternal      = -32603
)

// invalidParams is a request the client should correct; the message says how.
func invalidParams(format string, args ...any) *acp.RequestError {
	return &acp.RequestError{Code: codeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

func internalError(format string, args ...any) *acp.RequestError {
	return &acp.RequestError{Code: codeInternal, Message: fmt.Sprintf(format, args...)}
}

// Initialize states what shiro supports, and nothing more: no session/load
// yet, prompts of text with resource links and embedded resources, and
// sessions the client may close.
func (a *server) Initialize(context.Context, acp.InitializeRequest) (acp.InitializeResponse, error) {
	return acp.InitializeResponse{
		ProtocolVersion: acp.ProtocolVersionNumber,
		AgentInfo:       &acp.Implementation{Name: "shiro", Version: a.cfg.version},
		AgentCapabilities: acp.AgentCapabilities{
			PromptCapabilities:  acp.PromptCapabilities{EmbeddedContext: true, Image: true},
			SessionCapabilities: acp.SessionCapabilities{Close: &acp.SessionCloseCapabilities{}},
		},
		AuthMethods: []acp.AuthMethod{},
	}, nil
}

// Authenticate is refused: shiro offers no authentication methods (the
// model provider's key comes from shiro's own configuration).
func (a *server) Authenticate(_ context.Context, req acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, invalidParams("authentication method %q is not offered: shiro needs none (provider keys come from its configuration)", req.MethodId)
}

// NewSession opens a session in the client's working directory and offers
// its agent variants as session modes.
func (a *server) NewSession(ctx context.Context, req acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	cwd, err := checkCwd(req.Cwd)
	if err != nil {
		return acp.NewSessionResponse{}, err
	}
	servers := mcpServers(req.McpServers, a.cfg.log)
	if len(servers) > 0 {
		a.cfg.log.Info("acp: the session connects the client's MCP servers", "servers", serverNames(servers))
	}
	if a.isClosing() {
		return acp.NewSessionResponse{}, internalError("the agent is shutting down")
	}
	inner, err := a.open(a.life, NewSession{Cwd: cwd, MCPServers: servers})
	if err != nil {
		return acp.NewSessionResponse{}, internalError("opening a session in %s: %v", cwd, err)
	}
	first, err := firstEvent(ctx, inner)
	if err != nil {
		dispose(inner)
		return acp.NewSessionResponse{}, internalError("opening a session in %s: %v", cwd, err)
	}
	if first.Cwd == "" {
		first.Cwd = cwd
	}
	id := acp.SessionId("shiro-" + rand.Text())
	s := newSession(id, inner, first, a.peer, a.forward, a.cfg.log)
	a.mu.Lock()
	if a.closing {
		a.mu.Unlock()
		dispose(inner)
		return acp.NewSessionResponse{}, internalError("the agent is shutting down")
	}
	a.sessions[id] = s
	a.mu.Unlock()
	s.start()
	return acp.NewSessionResponse{SessionId: id, Modes: s.modeState(), ConfigOptions: s.configOptions()}, nil
}

func (a *server) isClosing() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.closing
}

// checkCwd refuses a working directory that is relative or is not an
// existing directory.
func checkCwd(cwd string) (string, error) {
	if !filepath.IsAbs(cwd) {
		return "", invalidParams("cwd %q must be an absolute path to the workspace", cwd)
	}
	info, err := os.Stat(cwd)
	if err != nil {
		return "", invalidParams("cwd %q: %v", cwd, err)
	}
	if !info.IsDir() {
		return "", invalidParams("cwd %q is a file; give the workspace directory", cwd)
	}
	return filepath.Clean(cwd), nil
}

// firstEvent reads the session's opening SessionEvent.
func firstEvent(ctx context.Context, s Session) (protocol.SessionEvent, error) {
	select {
	case e, ok := <-s.Events():
		if !ok {
			return protocol.SessionEvent{}, fmt.Errorf("the session closed before describing itself")
		}
		first, ok := e.(protocol.SessionEvent)
		if !ok {
			return protocol.SessionEvent{}, fmt.Errorf("the session's first event was %q, not %q", protocol.TypeOf(e), "session")
		}
		return first, nil
	case <-ctx.Done():
		return protocol.SessionEvent{}, ctx.Err()
	}
}

// dispose ends a session nobody will use and drains its events.
func dispose(s Session) {
	_, _ = s.Submit(protocol.Interrupt{})
	_, _ = s.Submit(protocol.Shutdown{})
	for range s.Events() {
	}
}

// SetSessionMode switches the permission mode, at once, even during a
// turn. The agent variants are the "agent" config option.
func (a *server) SetSessionMode(_ context.Context, req acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	s, err := a.lookup(req.SessionId)
	if err != nil {
		return acp.SetSessionModeResponse{}, err
	}
	if _, err := permission.ParseMode(string(req.ModeId)); err != nil && slices.Contains(s.agentNames(), string(req.ModeId)) {
		return acp.SetSessionModeResponse{}, invalidParams("modeId %q is an agent: choose agents with the %q config option (session/set_config_option); the modes are default, accept-edits and plan", req.ModeId, agentOption)
	}
	if _, err := s.inner.Submit(protocol.Configure{Mode: string(req.ModeId)}); err != nil {
		return acp.SetSessionModeResponse{}, invalidParams("modeId %q: %v", req.ModeId, err)
	}
	return acp.SetSessionModeResponse{}, nil
}

// SetSessionConfigOption sets the agent variant; like a Configure op, a
// change made during a turn applies when that turn ends.
func (a *server) SetSessionConfigOption(_ context.Context, req acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	v := req.ValueId
	if v == nil {
		return acp.SetSessionConfigOptionResponse{}, invalidParams("config option: only %q is offered, and it takes a value id", agentOption)
	}
	s, err := a.lookup(v.SessionId)
	if err != nil {
		return acp.SetSessionConfigOptionResponse{}, err
	}
	if v.ConfigId != agentOption {
		return acp.SetSessionConfigOptionResponse{}, invalidParams("configId %q is not an option of this session; the only one is %q", v.ConfigId, agentOption)
	}
	if !slices.Contains(s.agentNames(), string(v.Value)) {
		return acp.SetSessionConfigOptionResponse{}, invalidParams("agent %q is not offered; use one of %s", v.Value, strings.Join(s.agentNames(), ", "))
	}
	if _, err := s.inner.Submit(protocol.Configure{Agent: string(v.Value)}); err != nil {
		return acp.SetSessionConfigOptionResponse{}, invalidParams("agent %q: %v", v.Value, err)
	}
	opts := s.configOptions()
	if sel := opts[0].Select; sel != nil {
		// The reply says what the client chose; the session applies it at
		// the next turn boundary and confirms with a config update.
		sel.CurrentValue = v.Value
	}
	return acp.SetSessionConfigOptionResponse{ConfigOptions: opts}, nil
}

// Prompt runs one turn and answers when it has ended.
func (a *server) Prompt(ctx context.Context, req acp.PromptRequest) (acp.PromptResponse, error) {
	s, err := a.lookup(req.SessionId)
	if err != nil {
		return acp.PromptResponse{}, err
	}
	text, images, err := promptContent(req.Prompt, s.cwd)
	if err != nil {
		return acp.PromptResponse{}, invalidParams("prompt: %v", err)
	}
	return s.promptWith(ctx, text, images)
}

// Cancel interrupts the session's running turn; the prompt waiting for it
// answers with the stop reason cancelled.
func (a *server) Cancel(_ context.Context, n acp.CancelNotification) error {
	s, err := a.lookup(n.SessionId)
	if err != nil {
		return err
	}
	s.cancel()
	return nil
}

// CloseSession ends one session as the connection's end would, and forgets it.
func (a *server) CloseSession(ctx context.Context, req acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	a.mu.Lock()
	s, ok := a.sessions[req.SessionId]
	delete(a.sessions, req.SessionId)
	a.mu.Unlock()
	if !ok {
		return acp.CloseSessionResponse{}, invalidParams("sessionId %q names no open session", req.SessionId)
	}
	s.end()
	select {
	case <-s.drained:
	case <-ctx.Done():
		return acp.CloseSessionResponse{}, ctx.Err()
	}
	return acp.CloseSessionResponse{}, nil
}

// ListSessions and ResumeSession are not offered (initialize does not
// announce them): saved sessions are not served over ACP yet.
func (a *server) ListSessions(context.Context, acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	return acp.ListSessionsResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionList)
}

func (a *server) ResumeSession(context.Context, acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	return acp.ResumeSessionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionResume)
}
