#!/usr/bin/env node
// A generic MCP client on the TypeScript SDK (@modelcontextprotocol/sdk, the
// exact version in package.json), for `mcpconform client` to judge; see
// interop/ts-sdk-client.sh and interop/CLIENTS.md.
//
// Launch contract (that of the official conformance runner):
//   node client.mjs [ARGS...] SERVER
// SERVER, the last argument, is an http(s):// URL (Streamable HTTP), a ws://
// URL (WebSocket; needs a Node with a global WebSocket: 22+, or 20 with
// --experimental-websocket), or else a command line that starts a stdio
// server, split on spaces. Environment: MCP_CONFORMANCE_SCENARIO (scenario
// id), MCP_CONFORMANCE_PROTOCOL_VERSION (the version judged; this SDK always
// asks for its own latest, so it is only reported when the SDK lacks it),
// MCP_CONFORMANCE_CONTEXT (JSON, optional).
//
// The client declares sampling, elicitation (form) and roots {listChanged};
// it accepts every form elicitation with the schema's defaults (and a value of
// the right type for a required property without one), answers sampling with
// an assistant text message and roots/list with one root. Then:
//   context with toolCalls / promptGets / resourceReads -> list tools, then
//     make those calls, gets and reads in that order;
//   initialize -> list tools;
//   tools_call -> list tools, call add_numbers {a: 5, b: 3};
//   elicitation-sep1034-client-defaults -> list tools, call
//     test_client_elicitation_defaults;
//   sse-retry -> list tools, call test_reconnection;
//   json-schema-2020-12-preservation -> list tools, call json_schema_echo
//     with the inputSchema of json_schema_2020_12_tool as received;
//   sep-2322-client-request-state -> list tools, call test_mrtr_echo_state,
//     test_mrtr_no_state, test_mrtr_unrelated, test_mrtr_no_result_type (a
//     failed call is reported on stderr and the next one made);
//   anything else -> list tools.
// Exit 0 when every step succeeded, 1 with a message on stderr otherwise.
//
// MCPCONFORM_TS_CLIENT_TASKS=1 also declares client-side tasks (2025-11-25
// tasks v1: task-augmented elicitation/create and sampling/createMessage,
// tasks/list, tasks/cancel) and serves them from the SDK's InMemoryTaskStore.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { WebSocketClientTransport } from '@modelcontextprotocol/sdk/client/websocket.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LATEST_PROTOCOL_VERSION,
  ListRootsRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';

const NAME = 'mcpconform-ts-sdk-client';

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
      // multi-select enums: items.enum or items.anyOf[].const
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

// answer returns result, or with a task-augmented request (client-side
// tasks) creates a task, returns it, and completes it with result.
async function answer(request, extra, result) {
  if (!request.params?.task || !extra.taskStore) return result;
  const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl });
  setTimeout(() => {
    extra.taskStore.storeTaskResult(task.taskId, 'completed', result).catch((err) => {
      process.stderr.write(`${NAME}: storing the result of task ${task.taskId}: ${err?.message ?? err}\n`);
    });
  }, 10);
  return { task };
}

function transportFor(server) {
  if (/^https?:\/\//i.test(server)) return { kind: 'http', transport: new StreamableHTTPClientTransport(new URL(server)) };
  if (/^wss?:\/\//i.test(server)) {
    if (typeof globalThis.WebSocket !== 'function') {
      fail(`${server}: this Node (${process.version}) has no global WebSocket; run Node 22+, or Node 20 with --experimental-websocket`);
    }
    return { kind: 'ws', transport: new WebSocketClientTransport(new URL(server)) };
  }
  // The official runner's form: a command line split on spaces.
  const [command, ...args] = server.split(' ').filter((s) => s !== '');
  if (!command) fail('the server command line is empty');
  // The whole environment, not the SDK's default allow-list, so whatever the
  // launcher put there reaches the server it relays to.
  return { kind: 'stdio', transport: new StdioClientTransport({ command, args, env: { ...process.env }, stderr: 'inherit' }) };
}

async function main() {
  const server = process.argv.at(-1);
  if (process.argv.length < 3 || !server) fail('usage: client.mjs SERVER (an http:// or ws:// URL, or a stdio command line)');
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
  if (version && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    process.stderr.write(`${NAME}: note: the SDK does not speak ${version}; it asks for ${LATEST_PROTOCOL_VERSION}\n`);
  }

  const tasks = process.env.MCPCONFORM_TS_CLIENT_TASKS === '1';
  const capabilities = {
    sampling: {},
    elicitation: { form: {} },
    roots: { listChanged: true },
  };
  if (tasks) {
    capabilities.tasks = {
      list: {},
      cancel: {},
      requests: { elicitation: { create: {} }, sampling: { createMessage: {} } },
    };
  }
  const client = new Client(
    { name: NAME, version: '1.0.0' },
    { capabilities, ...(tasks ? { taskStore: new InMemoryTaskStore() } : {}) },
  );
  client.onerror = (err) => process.stderr.write(`${NAME}: transport error: ${err?.message ?? err}\n`);

  client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
    const mode = request.params.mode ?? 'form';
    if (mode !== 'form') return answer(request, extra, { action: 'decline' });
    return answer(request, extra, { action: 'accept', content: elicitationContent(request.params.requestedSchema) });
  });
  client.setRequestHandler(CreateMessageRequestSchema, async (request, extra) =>
    answer(request, extra, {
      role: 'assistant',
      content: { type: 'text', text: 'This is a test response from mcpconform-ts-sdk-client.' },
      model: 'test-model',
      stopReason: 'endTurn',
    }),
  );
  client.setRequestHandler(ListRootsRequestSchema, async () => ({
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
    await client.listTools();
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
      step = 'list tools';
      const { tools } = await client.listTools();
      const focal = tools.find((t) => t.name === 'json_schema_2020_12_tool');
      if (!focal) throw new Error('the server lists no tool json_schema_2020_12_tool');
      await call('json_schema_echo', { schema: focal.inputSchema });
    } else if (scenario === 'sep-2322-client-request-state') {
      // As the official clients do: a call the SDK rejects is reported, and
      // the next one made all the same.
      for (const name of ['test_mrtr_echo_state', 'test_mrtr_no_state', 'test_mrtr_unrelated', 'test_mrtr_no_result_type']) {
        await call(name, {}).catch((err) => process.stderr.write(`${NAME}: call tool ${name}: ${err?.message ?? err}\n`));
      }
    }
    // initialize and every other scenario: listing the tools was all.
    step = 'close';
    if (kind === 'http') {
      // Clients that no longer need a session SHOULD end it with DELETE; a
      // server may refuse (405), which is no error.
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
