package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/shiro-neko/shiro/internal/strictjson"
)

// reply is one hook's answer in the engine's terms, whichever protocol it
// spoke. The event decides what each part does (event.go).
type reply struct {
	// block: refuse the call or prompt, or send the model back to work,
	// for reason.
	block  bool
	reason string
	// decision is a pre_tool hook's say on the person's question: "allow"
	// (no question where a rule would ask) or "ask" (a question where a
	// rule would allow); "" leaves it to the rules.
	decision string
	// input replaces a pre_tool call's input; nil keeps it.
	input json.RawMessage
	// context reaches the model in its next request.
	context string
	// message is shown to the person.
	message string
	// stop ends the turn, with stopReason shown to the person.
	stop       bool
	stopReason string
}

// fromVerdict reads a pre_tool hook's verdict in shiro's protocol.
func fromVerdict(v verdict) reply {
	switch v := v.(type) {
	case refuseVerdict:
		return reply{block: true, reason: v.reason}
	case allowVerdict:
		return reply{input: v.input}
	}
	return reply{}
}

var eventReplyKeys = []string{"blocked", "context", "message", "stop"}

// decodeEventReply reads what a shiro hook of any event but pre_tool and
// after_turn printed: nothing, or one JSON object with any of
//
//	{"blocked":"…"}   refuse (user_prompt), send back (stop), or tell the model (post_tool)
//	{"context":"…"}   add to the model's next request
//	{"message":"…"}   show to the person
//	{"stop":"…"}      end the turn, with this reason
//
// strictly, like a pre_tool verdict.
func decodeEventReply(out []byte) (reply, error) {
	if strings.TrimSpace(string(out)) == "" {
		return reply{}, nil
	}
	members, err := decodeStrictObject(out)
	if err != nil {
		return reply{}, err
	}
	if key, ok := strictjson.UnknownKey(members, eventReplyKeys); ok {
		return reply{}, fmt.Errorf("unknown key %q (expected %s)", clip(key, 40), strings.Join(eventReplyKeys, ", "))
	}
	var r reply
	for key, into := range map[string]*string{"blocked": &r.reason, "context": &r.context, "message": &r.message, "stop": &r.stopReason} {
		if *into, err = optionalString(members, key); err != nil {
			return reply{}, err
		}
	}
	_, r.block = members["blocked"]
	_, r.stop = members["stop"]
	if r.block && strings.TrimSpace(r.reason) == "" {
		return reply{}, errors.New(`"blocked" must give the reason`)
	}
	return r, nil
}
