// Package protocol is the two-way seam between a session and its front
// ends. A front end submits Ops (a user turn, the answer to an approval or a
// question, an interrupt, a settings change, shutdown) and reads Events (the
// answer streaming in, tool calls and their outcomes, approval requests and
// questions, notices, the end of a turn).
//
// The terminal UI, headless mode, the Agent Client Protocol server and a
// delegating tool's subagents are all clients of the same protocol: an
// approval request is an event carrying an id, and the answer is an op that
// names it. Nothing is wired by callback before a session starts.
//
// Both sum types are sealed: one Go type per variant, each with an
// unexported marker method, so a switch over them is exhaustive in review
// and no other package can add a variant the front ends do not know.
//
// The JSON form (headless --json, --input-format stream-json) comes from the
// struct tags; the "type" member is each variant's name. The package is a
// leaf: it imports nothing of shiro's, so every front end can depend on it
// without pulling in the agent.
package protocol
