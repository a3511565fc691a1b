package lifecycle_test

import (
	"bufio"
	"context"
	"encoding/json"
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

// floodEnv makes the client flood: after initialize's answer it sends
// floodBytes of notifications/message, floodNoteBytes each, then
// notifications/initialized, and exits.
const (
	floodEnv       = "MCPCONFORM_TEST_FLOOD"
	floodBytes     = 96 << 20
	floodNoteBytes = 8 << 10
)

const (
	initializeLine  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"back-to-back","version":"0"}}}`
	initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

func init() {
	if len(os.Args) == 4 && os.Args[1] == "relay" {
		if err := transport.RunRelay(context.Background(), os.Args[2], os.Args[3], os.Stdin, os.Stdout); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv(backToBackEnv) != "" || os.Getenv(floodEnv) != "" {
		if err := backToBack(os.Args[len(os.Args)-1], os.Getenv(floodEnv) != ""); err != nil {
			fmt.Fprintln(os.Stderr, "back-to-back client:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
}

// backToBack sends initialize and notifications/initialized without waiting
// in between (over stdio in one write), reads the answer and exits. With
// flood it reads the answer first and floods before the notification.
func backToBack(server string, flood bool) error {
	note := floodNote()
	if strings.HasPrefix(server, "ws://") {
		c, _, err := websocket.DefaultDialer.Dial(server, nil)
		if err != nil {
			return err
		}
		defer c.Close()
		if err := c.WriteMessage(websocket.TextMessage, []byte(initializeLine)); err != nil {
			return err
		}
		if flood {
			if _, _, err := c.ReadMessage(); err != nil {
				return err
			}
			for range floodBytes / floodNoteBytes {
				if err := c.WriteMessage(websocket.TextMessage, note); err != nil {
					return err
				}
			}
		}
		if err := c.WriteMessage(websocket.TextMessage, []byte(initializedLine)); err != nil {
			return err
		}
		if flood {
			// A close handshake, so that nothing sent is lost to a reset.
			_ = c.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""))
			for {
				if _, _, err := c.ReadMessage(); err != nil {
					return nil
				}
			}
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
	lines := bufio.NewReader(out)
	if flood {
		if _, err := in.Write([]byte(initializeLine + "\n")); err != nil {
			return err
		}
		if _, err := lines.ReadString('\n'); err != nil {
			return err
		}
		w := bufio.NewWriterSize(in, 1<<20)
		for range floodBytes / floodNoteBytes {
			_, _ = w.Write(note)
			_ = w.WriteByte('\n')
		}
		_, _ = w.WriteString(initializedLine + "\n")
		return w.Flush()
	}
	if _, err := in.Write([]byte(initializeLine + "\n" + initializedLine + "\n")); err != nil {
		return err
	}
	_, err = lines.ReadString('\n')
	return err
}

// floodNote is one notifications/message of floodNoteBytes.
func floodNote() []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/message",
		"params": map[string]any{"level": "info", "data": strings.Repeat("x", floodNoteBytes-100)}})
	return b
}
