#!/usr/bin/env python3
"""A client harness for json-schema-2020-12-preservation that hands back the
whole tool definition it lists, not the inputSchema it keeps: over Streamable
HTTP (the server is the last argument), initialize, notifications/initialized,
then tools/call json_schema_echo with schema = {name, inputSchema}, then exit."""
import json
import os
import sys
import urllib.request

target = sys.argv[-1]
version = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION", "2025-11-25")


def post(message, session=None):
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if session:
        headers["Mcp-Session-Id"] = session
        headers["MCP-Protocol-Version"] = version
    request = urllib.request.Request(target, data=json.dumps(message).encode(), headers=headers)
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.headers.get("Mcp-Session-Id"), response.read().decode()


session, body = post({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                      "params": {"protocolVersion": version, "capabilities": {},
                                 "clientInfo": {"name": "schema-echo-client", "version": "1.0.0"}}})
if '"result"' not in body:
    sys.exit("initialize failed: " + body)
post({"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
post({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
      "params": {"name": "json_schema_echo",
                 "arguments": {"schema": {"name": "json_schema_2020_12_tool", "inputSchema": {"type": "object"}}}}}, session)
