package lifecycle_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/transport"
)

func TestLifecycle(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "client lifecycle")
}

// The test binary plays two parts when run again: the relay a stdio
// client is given as its server (`relay ADDR TOKEN`, as mcpconform's), and
// a client under test that writes initialize and notifications/initialized
// back to back (backToBackEnv set).
const backToBackEnv = "MCPCONFORM_TEST_BACK_TO_BACK"

const (
	initializeLine  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"back-to-back","version":"0"}}}`
	initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

func init() {
	if len(os.Args) == 4 && os.Args[1] == "relay" {
		if err := transport.RunRelay(contextBackground(), os.Args[2], os.Args[3], os.Stdin, os.Stdout); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv(backToBackEnv) != "" {
		if err := backToBack(os.Args[len(os.Args)-1]); err != nil {
			fmt.Fprintln(os.Stderr, "back-to-back client:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
}

// backToBack sends initialize and notifications/initialized without waiting
// in between (over stdio in one write), reads the answer and exits.
func backToBack(server string) error {
	if strings.HasPrefix(server, "ws://") {
		c, _, err := websocket.DefaultDialer.Dial(server, nil)
		if err != nil {
			return err
		}
		defer c.Close()
		if err := c.WriteMessage(websocket.TextMessage, []byte(initializeLine)); err != nil {
			return err
		}
		if err := c.WriteMessage(websocket.TextMessage, []byte(initializedLine)); err != nil {
			return err
		}
		_, _, err = c.ReadMessage()
		return err
	}
	argv := strings.Fields(server)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { _ = in.Close(); _ = cmd.Wait() }()
	if _, err := in.Write([]byte(initializeLine + "\n" + initializedLine + "\n")); err != nil {
		return err
	}
	_, err = bufio.NewReader(out).ReadString('\n')
	return err
}
