#!/usr/bin/env python3
"""A minimal MCP client, written apart from mcpconform's own fake client, for
the client command's tests: initialize, then notifications/initialized once
the answer is in, then exit. The server is the last argument, as the official
conformance runner gives it: an http:// URL (Streamable HTTP) or a command
line that starts a stdio server."""
import json
import os
import shlex
import subprocess
import sys
import urllib.request

target = sys.argv[-1]
version = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION", "2025-11-25")
initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": version, "capabilities": {},
                         "clientInfo": {"name": "minimal-client", "version": "1.0.0"}}}
initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def post(message, session=None):
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if session:
        headers["Mcp-Session-Id"] = session
        headers["MCP-Protocol-Version"] = version
    request = urllib.request.Request(target, data=json.dumps(message).encode(), headers=headers)
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.headers.get("Mcp-Session-Id"), response.read().decode()


if target.startswith("http://") or target.startswith("https://"):
    session, body = post(initialize)
    if '"result"' not in body:
        sys.exit("initialize failed: " + body)
    post(initialized, session)
else:
    server = subprocess.Popen(shlex.split(target), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    server.stdin.write(json.dumps(initialize) + "\n")
    server.stdin.flush()
    answer = server.stdout.readline()
    if '"result"' not in answer:
        sys.exit("initialize failed: " + answer)
    server.stdin.write(json.dumps(initialized) + "\n")
    server.stdin.flush()
    server.stdin.close()
    server.wait(timeout=10)
