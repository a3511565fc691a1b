package conform

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/mcpconform/mcpconform/transport"
)

// relayReady says Main runs the test binary, which can then be the relay a
// stdio client is given as its server.
var relayReady bool

// Main runs the package's tests (call it from TestMain). A client judged
// over stdio is given a command that relays its stdin and stdout to the fake
// server; that command is this test binary, started with the arguments
// "relay ADDR TOKEN", which Main recognises before the testing package
// parses its flags.
//
//	func TestMain(m *testing.M) { conform.Main(m) }
func Main(m *testing.M) {
	if len(os.Args) == 4 && os.Args[1] == "relay" {
		if err := transport.RunRelay(context.Background(), os.Args[2], os.Args[3], os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "mcpconform relay:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	relayReady = true
	os.Exit(m.Run())
}
