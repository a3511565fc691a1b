// Self-check of the protected MCP server in server.mjs (or of any target
// given after --): plays the authorization server of mcpconform's contract
// on a loopback port (RFC 8414 metadata and a JWKS of one ES256 key), mints
// RFC 9068 access tokens with jose, good and bad, starts the target pointed
// at it, and prints the HTTP status and WWW-Authenticate the target answers
// to each token on an MCP initialize request, beside what the contract
// expects.
//
// usage: node selfcheck.mjs [--scopes mcp:tools] [-- TARGET-COMMAND...]
// In TARGET-COMMAND, {addr} {port} {issuer} {resource} and {scopes} are
// replaced; the default is: node server.mjs --port {port} --issuer {issuer}
// --scopes {scopes}. SELFCHECK_TARGET_LOG=1 prints the target's output.
// Exit: 0 every case matched the contract, 1 some did not, 2 could not run.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { randomUUID, createHmac } from 'node:crypto';
import { connect } from 'node:net';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { SignJWT, exportJWK, generateKeyPair, base64url } from 'jose';

const INITIALIZE = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}';
const OK401 = '401 + resource_metadata';
const OK403 = '403 + insufficient_scope';

const { values: opts, positionals } = parseArgs({ options: { scopes: { type: 'string', default: 'mcp:tools' } }, allowPositionals: true });
const scopes = opts.scopes;
const here = fileURLToPath(new URL('.', import.meta.url));
const command = positionals.length
  ? positionals
  : [process.execPath, `${here}server.mjs`, '--port', '{port}', '--issuer', '{issuer}', '--scopes', '{scopes}'];

let target;
function fail(msg) {
  console.error(`selfcheck: ${msg}`);
  target?.kill();
  process.exit(2);
}

const listen = server => new Promise((resolve, reject) => {
  server.once('error', reject);
  server.listen(0, '127.0.0.1', () => resolve(server.address().port));
});

// The authorization server.
const key = await generateKeyPair('ES256');
const otherSameKid = await generateKeyPair('ES256');
const otherKid = await generateKeyPair('ES256');
const jwk = { ...(await exportJWK(key.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
let jwksHits = 0;
const as = createServer((req, res) => {
  const json = body => { res.setHeader('content-type', 'application/json'); res.end(JSON.stringify(body)); };
  if (req.url === '/.well-known/oauth-authorization-server') {
    return json({
      issuer, jwks_uri: `${issuer}/jwks`, introspection_endpoint: `${issuer}/introspect`,
      token_endpoint: `${issuer}/token`, authorization_endpoint: `${issuer}/authorize`,
      response_types_supported: ['code'], code_challenge_methods_supported: ['S256'],
    });
  }
  if (req.url === '/jwks') {
    jwksHits++;
    return json({ keys: [jwk] });
  }
  res.statusCode = 404;
  res.end();
});
const asPort = await listen(as);
const issuer = `http://127.0.0.1:${asPort}`;

// A free port for the target.
const probe = createServer();
const port = await listen(probe);
await new Promise(r => probe.close(r));
const addr = `127.0.0.1:${port}`;
const resource = `http://${addr}/mcp`;
const subst = { '{addr}': addr, '{port}': String(port), '{issuer}': issuer, '{resource}': resource, '{scopes}': scopes };
const argv = command.map(a => a.replace(/\{addr\}|\{port\}|\{issuer\}|\{resource\}|\{scopes\}/g, m => subst[m]));

let targetLog = '';
target = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
target.stdout.on('data', d => (targetLog += d));
target.stderr.on('data', d => (targetLog += d));
let exited = null;
target.on('exit', code => (exited = code));
target.on('error', err => fail(`cannot start ${argv[0]}: ${err.message}`));

// Wait for the listener, with a deadline.
const deadline = Date.now() + 30_000;
for (;;) {
  const up = await new Promise(resolve => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
  });
  if (up) break;
  if (exited !== null) fail(`target exited (${exited}) before listening:\n${targetLog}`);
  if (Date.now() > deadline) fail(`target did not listen on ${addr} within 30 s:\n${targetLog}`);
  await new Promise(r => setTimeout(r, 100));
}

const now = Math.floor(Date.now() / 1000);
function claims(edit) {
  const c = {
    iss: issuer, sub: 'selfcheck-user', aud: resource, exp: now + 300, nbf: now - 5, iat: now - 5,
    jti: randomUUID(), client_id: 'selfcheck-client',
  };
  if (scopes) c.scope = scopes;
  edit?.(c);
  return c;
}
const sign = (privateKey, kid, c) => new SignJWT(c).setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt' }).sign(privateKey);
const seg = v => base64url.encode(JSON.stringify(v));
const unsigned = c => `${seg({ alg: 'none', typ: 'at+jwt', kid: 'k1' })}.${seg(c)}.`;
function hs256(c) {
  const input = `${seg({ alg: 'HS256', typ: 'at+jwt', kid: 'k1' })}.${seg(c)}`;
  return `${input}.${createHmac('sha256', 'selfcheck-secret-selfcheck-secret').update(input).digest('base64url')}`;
}

const cases = [
  ['no token', '', OK401],
  ['valid', await sign(key.privateKey, 'k1', claims()), '200'],
  ['expired (exp now-600s)', await sign(key.privateKey, 'k1', claims(c => Object.assign(c, { exp: now - 600, nbf: now - 1200, iat: now - 1200 }))), OK401],
  ['expired 30s ago (inside 60s leeway)', await sign(key.privateKey, 'k1', claims(c => Object.assign(c, { exp: now - 30, nbf: now - 600, iat: now - 600 }))), 'either'],
  ['not yet valid (nbf now+600s)', await sign(key.privateKey, 'k1', claims(c => { c.nbf = now + 600; })), OK401],
  ['wrong aud', await sign(key.privateKey, 'k1', claims(c => { c.aud = 'http://127.0.0.1:1/other-mcp'; })), OK401],
  ['wrong iss', await sign(key.privateKey, 'k1', claims(c => { c.iss = 'http://127.0.0.1:1'; })), OK401],
  ['other key, unknown kid', await sign(otherKid.privateKey, 'k-other', claims()), OK401],
  ['other key, same kid', await sign(otherSameKid.privateKey, 'k1', claims()), OK401],
  ['alg none', unsigned(claims()), OK401],
  ['alg HS256', hs256(claims()), OK401],
  ['garbage token', 'not-a-jwt', OK401],
];
if (scopes) {
  cases.push(
    ['missing scope (no scope claim)', await sign(key.privateKey, 'k1', claims(c => { delete c.scope; })), OK403],
    ['wrong scope (scope=other)', await sign(key.privateKey, 'k1', claims(c => { c.scope = 'other'; })), OK403],
  );
}

async function post(token, body, headers = {}) {
  const h = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers };
  if (token) h.authorization = `Bearer ${token}`;
  const res = await fetch(resource, { method: 'POST', headers: h, body, signal: AbortSignal.timeout(15_000) });
  return { status: res.status, headers: res.headers, body: await res.text() };
}
function judge(want, status, www) {
  if (want === 'either') return ' (info)';
  const good = want === '200' ? status === 200
    : want === OK401 ? status === 401 && www.includes('resource_metadata=')
    : status === 403 && www.includes('error="insufficient_scope"');
  return good ? '' : ' DIFF';
}
const short = s => { s = s.split(/\s+/).join(' ').trim(); return s.length > 70 ? `${s.slice(0, 67)}...` : s || '-'; };
function protocolVersion(body) {
  for (const line of body.split('\n')) {
    try {
      const v = JSON.parse(line.replace(/^data:/, '').trim())?.result?.protocolVersion;
      if (v) return v;
    } catch {}
  }
  return undefined;
}

console.log(`target: ${argv.join(' ')}\nissuer: ${issuer}\nresource: ${resource}\nrequired scopes: ${JSON.stringify(scopes)}\n`);
const prmUrl = `http://${addr}/.well-known/oauth-protected-resource/mcp`;
const prm = await fetch(prmUrl);
console.log(`GET ${prmUrl} -> ${prm.status} ${(await prm.text()).trim()}\n`);

const rows = [['case', 'want', 'got', 'WWW-Authenticate', 'body']];
let failed = 0;
let valid;
for (const [name, token, want] of cases) {
  const r = await post(token, INITIALIZE);
  const www = r.headers.get('www-authenticate') ?? '';
  const verdict = judge(want, r.status, www);
  if (verdict === ' DIFF') failed++;
  if (want === '200' && r.status === 200) valid = { token, session: r.headers.get('mcp-session-id'), proto: protocolVersion(r.body) };
  rows.push([name, want, `${r.status}${verdict}`, www || '-', short(r.body)]);
}
if (valid) {
  const h = {};
  if (valid.session) h['mcp-session-id'] = valid.session;
  if (valid.proto) h['mcp-protocol-version'] = valid.proto;
  let r = await post(valid.token, '{"jsonrpc":"2.0","method":"notifications/initialized"}', h);
  rows.push(['valid: notifications/initialized', '202', `${r.status}${r.status === 202 ? '' : ' DIFF'}`, '-', short(r.body)]);
  if (r.status !== 202) failed++;
  r = await post(valid.token, '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_simple_text","arguments":{}}}', h);
  const good = r.status === 200 && r.body.includes('This is a simple text response for testing.');
  rows.push(['valid: tools/call test_simple_text', '200 + text', `${r.status}${good ? '' : ' DIFF'}`, '-', short(r.body)]);
  if (!good) failed++;
}
const widths = rows[0].map((_, i) => Math.max(...rows.map(r => r[i].length)));
for (const r of rows) console.log(r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  '));
console.log(`\nJWKS fetched ${jwksHits} time(s); ${failed} case(s) did not match the contract`);
if (process.env.SELFCHECK_TARGET_LOG) console.log(`\n--- target log\n${targetLog}`);
target.kill();
as.close();
process.exit(failed ? 1 : 0);
