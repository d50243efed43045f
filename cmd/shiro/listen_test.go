package main

import (
	"net"
	"os"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"
)

// listenCmd is the script command `listen PORTFILE HITFILE`: it opens a
// TCP listener on loopback, outside any sandbox, writes its port to
// PORTFILE, and creates HITFILE when anything connects. The listener
// closes when the script ends.
func listenCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: listen PORTFILE HITFILE")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	ts.Defer(func() { _ = ln.Close() })
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(port), 0o644))
	hit := ts.MkAbs(args[1])
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			_ = os.WriteFile(hit, []byte("connected\n"), 0o644)
			_ = conn.Close()
		}
	}()
}
