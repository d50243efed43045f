package llm

import (
	"net/http"
	"time"
)

// Timer is the watchdog's timer, for the fake clock of the tests.
type Timer = timer

// IdleTransportWithClock is IdleClient's transport with afterFunc in
// place of time.AfterFunc.
func IdleTransportWithClock(next http.RoundTripper, provider string, idle time.Duration, afterFunc func(time.Duration, func()) Timer) http.RoundTripper {
	return &idleTransport{next: next, provider: provider, idle: idle, afterFunc: afterFunc}
}
