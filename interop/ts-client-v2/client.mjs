#!/usr/bin/env node
// A generic MCP client on the newest TypeScript SDK client package
// (@modelcontextprotocol/client, the exact version in package.json), with the
// SDK's 2026-07-28 version negotiation on, for `mcpconform client` to judge;
// see interop/ts-client-v2.sh and interop/CLIENTS.md.
//
// Launch contract (that of the official conformance runner):
//   node client.mjs [ARGS...] SERVER
// SERVER, the last argument, is an http(s):// URL (Streamable HTTP) or else a
// command line that starts a stdio server, split on spaces (this package has
// no WebSocket transport). Environment: MCP_CONFORMANCE_SCENARIO (scenario id),
// MCP_CONFORMANCE_PROTOCOL_VERSION (the version judged), MCP_CONFORMANCE_CONTEXT
// (JSON, optional).
//
// Negotiation: at 2026-07-28 the client pins that revision (no probe and no
// fallback: a strict 2026 client); at any other version it runs the SDK's
// `auto` mode, which probes with server/discover and falls back to the legacy
// initialize handshake. MCPCONFORM_TS_CLIENT_NEGOTIATION=auto|legacy|pin
// overrides that choice.
//
// The client declares sampling, elicitation (form) and roots {listChanged};
// it accepts every form elicitation with the schema's defaults (and a value of
// the right type for a required property without one), answers sampling with
// an assistant text message and roots/list with one root. Then, as the
// TypeScript SDK 1.x harness beside it (interop/ts-sdk-client/client.mjs):
//   context with toolCalls / promptGets / resourceReads -> list tools, then
//     make those calls, gets and reads in that order;
//   tools_call -> list tools, call add_numbers {a: 5, b: 3};
//   elicitation-sep1034-client-defaults -> list tools, call
//     test_client_elicitation_defaults;
//   sse-retry -> list tools, call test_reconnection;
//   json-schema-2020-12-preservation -> list tools, call json_schema_echo
//     with the inputSchema of json_schema_2020_12_tool as received;
//   http-standard-headers -> list tools, resources and prompts, then call,
//     read and get each of them;
//   http-invalid-tool-headers -> list tools, call valid_tool;
//   sep-2322-client-request-state -> list tools, call the four test_mrtr_*
//     tools (a failed call is reported on stderr and the next one made);
//   anything else -> list tools.
// Exit 0 when every step succeeded, 1 with a message on stderr otherwise.
import { Client, LATEST_PROTOCOL_VERSION, StreamableHTTPClientTransport, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const NAME = 'mcpconform-ts-client-v2';
const MODERN = '2026-07-28';

function fail(message) {
  process.stderr.write(`${NAME}: ${message}\n`);
  process.exit(1);
}

// valueFor gives a property of a form elicitation's requestedSchema a value:
// its default, or for a required property without one a value of its type.
function valueFor(prop) {
  if (prop && Object.hasOwn(prop, 'default')) return prop.default;
  const p = prop ?? {};
  switch (p.type) {
    case 'boolean':
      return true;
    case 'integer':
    case 'number': {
      let n = typeof p.minimum === 'number' ? p.minimum : 0;
      if (typeof p.maximum === 'number' && n > p.maximum) n = p.maximum;
      return p.type === 'integer' ? Math.ceil(n) : n;
    }
    case 'array': {
      const items = p.items ?? {};
      const first = items.enum?.[0] ?? items.anyOf?.[0]?.const ?? items.oneOf?.[0]?.const;
      const min = typeof p.minItems === 'number' ? p.minItems : 1;
      return first === undefined || min === 0 ? [] : [first];
    }
    case 'string':
    default: {
      const choice = p.enum?.[0] ?? p.oneOf?.[0]?.const ?? p.anyOf?.[0]?.const;
      if (choice !== undefined) return choice;
      switch (p.format) {
        case 'email':
          return 'test@example.com';
        case 'uri':
          return 'https://example.com/';
        case 'date':
          return '2025-01-01';
        case 'date-time':
          return '2025-01-01T00:00:00Z';
      }
      let s = 'test';
      if (typeof p.minLength === 'number') while (s.length < p.minLength) s += 'x';
      if (typeof p.maxLength === 'number') s = s.slice(0, p.maxLength);
      return s;
    }
  }
}

function elicitationContent(schema) {
  const content = {};
  const required = new Set(schema?.required ?? []);
  for (const [key, prop] of Object.entries(schema?.properties ?? {})) {
    if ((prop && Object.hasOwn(prop, 'default')) || required.has(key)) content[key] = valueFor(prop);
  }
  return content;
}

function transportFor(server) {
  if (/^https?:\/\//i.test(server)) return { kind: 'http', transport: new StreamableHTTPClientTransport(new URL(server)) };
  if (/^wss?:\/\//i.test(server)) fail(`${server}: @modelcontextprotocol/client has no WebSocket transport`);
  const [command, ...args] = server.split(' ').filter((s) => s !== '');
  if (!command) fail('the server command line is empty');
  // The whole environment, so whatever the launcher put there reaches the
  // server it relays to.
  return { kind: 'stdio', transport: new StdioClientTransport({ command, args, env: { ...process.env }, stderr: 'inherit' }) };
}

function negotiationFor(version) {
  const chosen = process.env.MCPCONFORM_TS_CLIENT_NEGOTIATION ?? (version === MODERN ? 'pin' : 'auto');
  switch (chosen) {
    case 'pin':
      return { mode: { pin: MODERN } };
    case 'auto':
    case 'legacy':
      return { mode: chosen };
    default:
      fail(`MCPCONFORM_TS_CLIENT_NEGOTIATION=${chosen}: want auto, legacy or pin`);
  }
}

async function main() {
  const server = process.argv.at(-1);
  if (process.argv.length < 3 || !server) fail('usage: client.mjs SERVER (an http:// URL, or a stdio command line)');
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  const version = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION ?? '';
  let context = {};
  if (process.env.MCP_CONFORMANCE_CONTEXT) {
    try {
      context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) ?? {};
    } catch (err) {
      fail(`MCP_CONFORMANCE_CONTEXT is not JSON: ${err.message}`);
    }
  }
  if (version && version !== MODERN && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    process.stderr.write(`${NAME}: note: the SDK does not speak ${version}; it asks for ${LATEST_PROTOCOL_VERSION}\n`);
  }

  const client = new Client(
    { name: NAME, version: '1.0.0' },
    {
      capabilities: { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } },
      versionNegotiation: negotiationFor(version),
    },
  );
  client.onerror = (err) => process.stderr.write(`${NAME}: transport error: ${err?.message ?? err}\n`);

  client.setRequestHandler('elicitation/create', async (request) => {
    const mode = request.params.mode ?? 'form';
    if (mode !== 'form') return { action: 'decline' };
    return { action: 'accept', content: elicitationContent(request.params.requestedSchema) };
  });
  client.setRequestHandler('sampling/createMessage', async () => ({
    role: 'assistant',
    content: { type: 'text', text: `This is a test response from ${NAME}.` },
    model: 'test-model',
    stopReason: 'endTurn',
  }));
  client.setRequestHandler('roots/list', async () => ({
    roots: [{ uri: 'file:///test/root', name: 'Test Root' }],
  }));

  const { kind, transport } = transportFor(server);
  let step = `connect over ${kind}`;
  try {
    await client.connect(transport);
    const toolCalls = Array.isArray(context.toolCalls) ? context.toolCalls : [];
    const promptGets = Array.isArray(context.promptGets) ? context.promptGets : [];
    const resourceReads = Array.isArray(context.resourceReads) ? context.resourceReads : [];
    const call = async (name, args) => {
      step = `call tool ${name}`;
      const res = await client.callTool({ name, arguments: args ?? {} });
      if (res.isError) process.stderr.write(`${NAME}: tool ${name} answered isError: ${JSON.stringify(res.content ?? []).slice(0, 500)}\n`);
    };
    step = 'list tools';
    const { tools } = await client.listTools();
    if (toolCalls.length || promptGets.length || resourceReads.length) {
      for (const c of toolCalls) await call(c.name, c.arguments);
      for (const g of promptGets) {
        step = `get prompt ${g.name}`;
        await client.getPrompt({ name: g.name, arguments: g.arguments ?? {} });
      }
      for (const r of resourceReads) {
        step = `read resource ${r.uri}`;
        await client.readResource({ uri: r.uri });
      }
    } else if (scenario === 'tools_call') {
      await call('add_numbers', { a: 5, b: 3 });
    } else if (scenario === 'elicitation-sep1034-client-defaults') {
      await call('test_client_elicitation_defaults', {});
    } else if (scenario === 'sse-retry') {
      await call('test_reconnection', {});
    } else if (scenario === 'json-schema-2020-12-preservation') {
      const focal = tools.find((t) => t.name === 'json_schema_2020_12_tool');
      if (!focal) throw new Error('the server lists no tool json_schema_2020_12_tool');
      await call('json_schema_echo', { schema: focal.inputSchema });
    } else if (scenario === 'http-standard-headers') {
      // Every tool, resource and prompt the server lists, so that each
      // method that carries Mcp-Name is made.
      for (const t of tools) await call(t.name, {});
      step = 'list resources';
      const { resources } = await client.listResources();
      for (const r of resources) {
        step = `read resource ${r.uri}`;
        await client.readResource({ uri: r.uri });
      }
      step = 'list prompts';
      const { prompts } = await client.listPrompts();
      for (const p of prompts) {
        step = `get prompt ${p.name}`;
        await client.getPrompt({ name: p.name, arguments: {} });
      }
    } else if (scenario === 'http-invalid-tool-headers') {
      // The SDK is expected to leave out the tools whose header
      // annotations are invalid; the valid one is called.
      await call('valid_tool', {});
    } else if (scenario === 'sep-2322-client-request-state') {
      for (const name of ['test_mrtr_echo_state', 'test_mrtr_no_state', 'test_mrtr_unrelated', 'test_mrtr_no_result_type']) {
        await call(name, {}).catch((err) => process.stderr.write(`${NAME}: call tool ${name}: ${err?.message ?? err}\n`));
      }
    }
    step = 'close';
    if (kind === 'http' && typeof transport.terminateSession === 'function') {
      // A 2025 session SHOULD be ended with DELETE; a server may refuse (405),
      // and a 2026-07-28 connection has no session: neither is an error.
      await transport.terminateSession().catch(() => {});
    }
    await client.close();
  } catch (err) {
    await client.close().catch(() => {});
    fail(`scenario ${JSON.stringify(scenario)}: ${step}: ${err?.message ?? err}`);
  }
  process.exit(0);
}

main().catch((err) => fail(err?.stack ?? String(err)));
