package reports_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/reports"
)

var fixtureStart = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// sampleRun covers every status, multi-line messages, Markdown-hostile
// titles and a transcript with "]]>" in it. Only the first scenario names
// its side and transport; the writers render the others with the run's
// (Normalize). Fixed times keep goldens stable.
func sampleRun() *reports.Run {
	return &reports.Run{
		Tool:        "mcpconform",
		ToolVersion: "0.1.0",
		Side:        "server",
		Target:      "stdio: ./srv --flag",
		Transport:   "stdio",
		SpecVersion: "2025-11-25",
		Started:     fixtureStart,
		Duration:    1234567 * time.Microsecond,
		Scenarios: []reports.Scenario{
			{
				ID:        "lifecycle-initialize",
				Title:     "Initialize handshake",
				Family:    "lifecycle",
				Side:      "server",
				Transport: "stdio",
				Started:   fixtureStart.Add(10 * time.Millisecond),
				Duration:  120 * time.Millisecond,
				Checks: []reports.Check{
					{
						ID: "lifecycle-initialize/version-echoed", Title: "Server answers with a protocol version it supports",
						Level: "MUST", SpecRef: "2025-11-25/basic/lifecycle.mdx#version-negotiation",
						Status: reports.Passed, Duration: 1500 * time.Microsecond,
					},
					{
						ID: "lifecycle-initialize/capabilities-object", Title: "result.capabilities is an object",
						Level: "MUST", SpecRef: "2025-11-25/basic/lifecycle.mdx#initialization",
						Status: reports.Failed, Duration: 2 * time.Millisecond,
						Message: "Expected: result.capabilities to be an object\nActual: null",
					},
					{
						ID: "lifecycle-initialize/server-info-name", Title: "serverInfo.name is not empty",
						Level: "SHOULD", SpecRef: "2025-11-25/basic/lifecycle.mdx#initialization",
						Status: reports.Warning, Duration: 250 * time.Microsecond,
						Message: "Expected: serverInfo.name to be non-empty\nActual: \"\"",
					},
				},
				Transcript: "-> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"note\":\"a]]>b & <c>\"}}\n" +
					"<- {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":null}}\n",
				Stderr: "srv: listening on stdio\n",
			},
			{
				ID:       "tools-list",
				Title:    "tools/list returns `name` | `inputSchema` for each _tool_",
				Family:   "tools",
				Duration: 5 * time.Second,
				Checks: []reports.Check{
					{
						ID: "tools-list/advertised", Title: "Server advertises the tools capability",
						Level: "MAY", SpecRef: "2025-11-25/server/tools.mdx#capabilities",
						Status: reports.Skipped, Message: "server does not advertise the tools capability",
					},
					{
						ID: "tools-list/response", Title: "tools/list gets a response",
						Level: "MUST", SpecRef: "2025-11-25/server/tools.mdx#listing-tools",
						Status: reports.Errored, Reason: reports.ReasonDeadline, Duration: 5 * time.Second,
						Message: "harness: deadline exceeded after 5s\nwaiting for response to id 2",
					},
				},
			},
			{
				ID:          "transport-stdio-newline",
				Title:       "Messages are newline-delimited",
				Family:      "transport",
				SpecVersion: "2025-06-18",
				Duration:    3 * time.Millisecond,
				Checks: []reports.Check{
					{
						ID: "transport-stdio-newline/no-embedded-newlines", Title: "Messages contain no embedded newlines",
						Level: "SHOULD", SpecRef: "2025-06-18/basic/transports.mdx#stdio",
						Status: reports.Warning, Duration: time.Millisecond,
						Message: "Expected: one message per line\nActual:\n```json\n{\n  \"jsonrpc\": \"2.0\"\n}\n```",
					},
				},
			},
		},
	}
}

// garbage is what a misbehaving target may print: CDATA terminators, NULs,
// ANSI colours, a bare ESC, invalid UTF-8 and non-characters.
const garbage = "start ]]> mid ]]]]> NUL\x00 bell\a ESC\x1b[31mred\x1b[0m bare\x1bX " +
	"bad\xff\xfe utf8 \xc3( nonchar\uFFFE\uFFFF vt\v ff\f ok-unicode é ✓ end"

// Axes of multiRun, in run order.
var (
	multiTransports = []string{"stdio", "http", "ws"}
	multiVersions   = []string{"2025-06-18", "2025-11-25"}
)

// multiRun runs the same three scenarios over every transport × version of
// multiTransports × multiVersions, as the server command does: check ids
// repeat across runs. Only lifecycle-ping over http at 2025-11-25 fails,
// with a 100-line transcript; only tools-list over ws at 2025-06-18 cannot
// be judged; everything else passes.
func multiRun() *reports.Run {
	r := &reports.Run{
		Tool: "mcpconform", ToolVersion: "0.1.0", Side: "server", Target: "built-in reference server",
		Transport: "stdio,http,ws", SpecVersion: "2025-06-18,2025-11-25",
		Started: fixtureStart, Duration: 3 * time.Second,
	}
	for _, tr := range multiTransports {
		for _, v := range multiVersions {
			ping := reports.Scenario{
				ID: "lifecycle-ping", Title: "ping gets an empty result", Family: "lifecycle",
				Side: "server", Transport: tr, SpecVersion: v, Duration: 4 * time.Millisecond,
				Checks: []reports.Check{
					{ID: "lifecycle-ping/empty-result", Title: "ping is answered with {}", Level: "MUST",
						SpecRef: v + "/basic/utilities/ping.mdx", Status: reports.Passed},
					{ID: "lifecycle-ping/same-id", Title: "the response echoes the request id", Level: "MUST",
						SpecRef: v + "/basic/index.mdx#responses", Status: reports.Passed},
				},
				Transcript: "    0.001s send   [A] {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n" +
					"    0.002s recv   [A] {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n",
			}
			initialize := reports.Scenario{
				ID: "lifecycle-initialize", Title: "Initialize handshake", Family: "lifecycle",
				Side: "server", Transport: tr, SpecVersion: v, Duration: 6 * time.Millisecond,
				Checks: []reports.Check{
					{ID: "lifecycle-initialize/version-echoed", Title: "the server answers with a version it supports",
						Level: "MUST", SpecRef: v + "/basic/lifecycle.mdx", Status: reports.Passed},
				},
			}
			tools := reports.Scenario{
				ID: "tools-list", Title: "tools/list", Family: "tools",
				Side: "server", Transport: tr, SpecVersion: v, Duration: 5 * time.Millisecond,
				Checks: []reports.Check{
					{ID: "tools-list/response", Title: "tools/list gets a response", Level: "MUST",
						SpecRef: v + "/server/tools.mdx", Status: reports.Passed},
				},
			}
			if tr == "http" && v == "2025-11-25" {
				ping.Checks[0].Status = reports.Failed
				ping.Checks[0].Message = "Expected: result {}\nActual: error -32603 \"internal\""
				var t strings.Builder
				for i := 1; i <= 100; i++ {
					fmt.Fprintf(&t, "    0.%03ds recv   [A] frame %d\n", i, i)
				}
				ping.Transcript = t.String()
			}
			if tr == "ws" && v == "2025-06-18" {
				tools.Checks[0].Status = reports.Errored
				tools.Checks[0].Message = "harness: websocket closed before the response"
			}
			r.Scenarios = append(r.Scenarios, ping, initialize, tools)
		}
	}
	return r
}
