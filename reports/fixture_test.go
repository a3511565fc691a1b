package reports_test

import (
	"time"

	"github.com/mcpconform/mcpconform/reports"
)

var fixtureStart = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// sampleRun covers every status, multi-line messages, Markdown-hostile
// titles and a transcript with "]]>" in it. Fixed times keep goldens stable.
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
				ID:       "lifecycle-initialize",
				Title:    "Initialize handshake",
				Family:   "lifecycle",
				Started:  fixtureStart.Add(10 * time.Millisecond),
				Duration: 120 * time.Millisecond,
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
						Status: reports.Errored, Duration: 5 * time.Second,
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
