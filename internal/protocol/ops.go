package protocol

import "errors"

// Op is one request from a front end to a session. A session's Submit
// returns the op's id, unique in that session, and the events the op
// causes carry it in their Op field (a command's result, a turn's start,
// end and errors): that id, never the text sent, is how a client matches
// what comes back to what it sent.
type Op interface{ opType() string }

// UserTurn is the person's next message. A turn submitted while another
// runs is queued and starts when that one ends.
type UserTurn struct {
	Text string `json:"text"`
	// Images are pictures sent with the text (a screenshot); the session
	// checks each is a format the models take. A pointer keeps UserTurn
	// comparable: front ends and their tests compare ops with ==, and an
	// op holding a slice would make that panic.
	Images *[]Image `json:"images,omitempty"`
}

// Pictures are a turn's images; none when it has none.
func (u UserTurn) Pictures() []Image {
	if u.Images == nil {
		return nil
	}
	return *u.Images
}

// WithImages is the turn with these pictures (none when images is empty).
func (u UserTurn) WithImages(images []Image) UserTurn {
	if len(images) == 0 {
		u.Images = nil
	} else {
		u.Images = &images
	}
	return u
}

// Image is one picture of a user turn: its bytes (base64 in JSON) and
// their media type (image/png, image/jpeg, image/gif or image/webp). Name
// (a file name) is only for messages. A front end that reads files turns
// a path into these bytes before it submits the turn; headless
// stream-json input may give "path" instead of "data" for that.
type Image struct {
	MediaType string `json:"mediaType,omitempty"`
	Data      []byte `json:"data,omitempty"`
	Name      string `json:"name,omitempty"`
	Path      string `json:"path,omitempty"`
}

// Approval answers the ApprovalRequestEvent with the same ID.
type Approval struct {
	ID       string   `json:"id"`
	Decision Decision `json:"answer"`
	// Reason, on a "no", is told to the model instead of the default.
	Reason string `json:"reason,omitempty"`
}

// Answer answers the QuestionEvent with the same ID: the chosen option
// labels, or a typed text, or Dismissed when the person declined to choose
// (the model then decides on its own).
type Answer struct {
	ID        string   `json:"id"`
	Chosen    []string `json:"chosen,omitempty"`
	Text      string   `json:"text,omitempty"`
	Dismissed bool     `json:"dismissed,omitempty"`
}

// Interrupt stops the running turn and drops queued turns. With CallID it
// stops only that tool call (bash kills its processes) and the turn goes
// on, so the model reads that the call was stopped.
type Interrupt struct {
	CallID string `json:"callId,omitempty"`
}

// Configure changes settings for the turns that follow; an empty field
// leaves that setting alone. A change submitted during a turn applies when
// it ends, except Mode.
type Configure struct {
	Model    string `json:"model,omitempty"`
	Agent    string `json:"agent,omitempty"`
	Thinking string `json:"thinking,omitempty"`
	// Mode is the permission mode: default, accept-edits or plan (Claude
	// Code's acceptEdits is taken too). It applies at once, even during a
	// turn: it is the person's say over the calls still to come.
	Mode string `json:"mode,omitempty"`
}

// Command runs a slash command ("/cost", "/tools") and answers with a
// CommandResultEvent. Commands that change the conversation wait for the
// running turn like a UserTurn.
type Command struct {
	Line string `json:"line"`
}

// Shutdown says no more input will come: nobody is left to answer
// approvals or questions (they are decided by the session's policy from
// now on), queued turns still run, and then the event stream closes. To
// stop at once, submit an Interrupt first.
type Shutdown struct{}

func (UserTurn) opType() string  { return "user" }
func (Approval) opType() string  { return "approval" }
func (Answer) opType() string    { return "answer" }
func (Interrupt) opType() string { return "interrupt" }
func (Configure) opType() string { return "configure" }
func (Command) opType() string   { return "command" }
func (Shutdown) opType() string  { return "shutdown" }

// Errors a session's Submit returns, shared by every implementation so
// clients can tell them apart.
var (
	// ErrClosed: the session is shutting down and takes no more input.
	ErrClosed = errors.New("the session is closed")
	// ErrUnknownRequest: an answer names no open request (answered
	// already, withdrawn because its call or turn ended, or never asked).
	ErrUnknownRequest = errors.New("no open request has that id (it was answered, withdrawn, or never asked)")
)
