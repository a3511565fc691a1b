#!/usr/bin/env node
// An MCP client on the TypeScript SDK's OAuth support (@modelcontextprotocol/sdk,
// the exact version in package.json), for the authorization scenarios of
// `mcpconform client` and of the official conformance runner; see
// interop/ts-auth-client.sh and README.md beside this file.
//
// Launch contract (that of the official conformance runner):
//   node client.mjs [ARGS...] SERVER
// SERVER, the last argument, is the MCP server's http(s):// URL (Streamable
// HTTP). Environment: MCP_CONFORMANCE_SCENARIO (scenario id, e.g.
// auth/metadata-default), MCP_CONFORMANCE_PROTOCOL_VERSION (the version
// judged; this SDK always asks for its own latest, so it is only reported),
// MCP_CONFORMANCE_CONTEXT (JSON, optional): auth/pre-registration gives
// client_id and client_secret (and, from the official runner, issuer);
// auth/client-credentials-basic client_id and client_secret;
// auth/client-credentials-jwt client_id, private_key_pem and
// signing_algorithm; auth/wif-jwt-bearer client_id and valid_jwt.
// MCPCONFORM_TS_AUTH_DEBUG=1 traces the flow on stderr.
//
// Authorization is the SDK's: an OAuthClientProvider handed to
// StreamableHTTPClientTransport as authProvider. The SDK discovers the
// metadata, registers (client ID metadata document when the authorization
// server supports it, else dynamic registration, else the pre-registered
// client from the context), builds the authorization URL with PKCE, and on a
// 401 or a 403 insufficient_scope throws UnauthorizedError after calling the
// provider's redirectToAuthorization. This harness plays the user agent and
// the redirect_uri's callback handler: it GETs the authorization URL without
// following the redirect, checks the state it handed out, takes code from
// the Location and finishes with the transport's finishAuth(code), then
// retries the request that was refused. The SDK has no RFC 9207 support (no
// API takes the callback's iss), so iss is read but not checked: judging the
// SDK, the harness does not make up for that.
//
// Non-interactive scenarios use the SDK's own providers from
// client/auth-extensions (ClientCredentialsProvider for client_secret_basic,
// PrivateKeyJwtProvider for private_key_jwt) or, for the JWT-bearer grant,
// JwtBearerProvider below. The SDK has nothing for auth/dpop, auth/dpop-nonce
// or auth/enterprise-managed-authorization: those run the authorization-code
// client and fail, as the SDK would.
//
// Then: connect, list tools, call test-tool with {} (non-interactive grants:
// connect and list tools, then call test-tool too when it is listed).
// Exit 0 when every step succeeded, 1 with a one-line reason on stderr.
//
// Every request goes through a fetch that refuses any host but loopback, so
// a target's metadata cannot send this client's traffic off the machine.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { ClientCredentialsProvider, PrivateKeyJwtProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { randomBytes } from 'node:crypto';

const NAME = 'mcpconform-ts-auth-client';
const REDIRECT_URI = 'http://localhost:3000/callback';
// SEP-991 client ID metadata document: the official suite's well-known URL.
// It is only ever a client_id: nobody on this side fetches it.
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';
// Authorizations one operation may go through before the harness gives up.
// Loose on purpose: the SDK's own guard against re-authorization loops
// (one upscoping per WWW-Authenticate challenge) is what auth/scope-retry-limit
// measures, so the harness must not stop earlier than a sane SDK would.
const MAX_AUTHORIZATIONS = 5;
const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

function oneLine(text) {
  // Target text reaches a terminal: no control sequences, one line.
  return String(text).replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
}

function fail(message) {
  process.stderr.write(`${NAME}: ${oneLine(message)}\n`);
  process.exit(1);
}

function debug(message) {
  if (process.env.MCPCONFORM_TS_AUTH_DEBUG) process.stderr.write(`${NAME}: ${oneLine(message)}\n`);
}

function isLoopback(url) {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

// loopbackFetch is fetch for loopback URLs only.
async function loopbackFetch(input, init) {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (!isLoopback(url)) throw new Error(`refusing to send a request off this machine: ${url.origin}`);
  return fetch(input, init);
}

// HarnessProvider is the application's half of the SDK's OAuthClientProvider:
// storage for what the SDK hands it (kept unchanged, as the SDK asks: it
// stamps the issuer into what it saves), and a user agent that "approves"
// the authorization at once.
class HarnessProvider {
  constructor({ clientMetadataUrl, preRegistered } = {}) {
    this.clientMetadataUrl = clientMetadataUrl;
    this._clientInformation = preRegistered;
    this._tokens = undefined;
    this._codeVerifier = undefined;
    this._state = undefined;
    this.pending = undefined; // { code, iss } from the last authorization response
  }

  get redirectUrl() {
    return REDIRECT_URI;
  }

  get clientMetadata() {
    return {
      client_name: NAME,
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      // SEP-837: a command-line client is a native application. The SDK's
      // schema lacks the field but sends client metadata as given.
      application_type: 'native',
    };
  }

  state() {
    this._state = randomBytes(16).toString('base64url');
    return this._state;
  }

  clientInformation() {
    return this._clientInformation;
  }

  saveClientInformation(info) {
    this._clientInformation = info;
  }

  tokens() {
    return this._tokens;
  }

  saveTokens(tokens) {
    this._tokens = tokens;
  }

  saveCodeVerifier(verifier) {
    this._codeVerifier = verifier;
  }

  codeVerifier() {
    if (!this._codeVerifier) throw new Error('no PKCE code verifier was saved');
    return this._codeVerifier;
  }

  invalidateCredentials(scope) {
    debug(`SDK invalidates credentials: ${scope}`);
    if (scope === 'all' || scope === 'tokens') this._tokens = undefined;
    if (scope === 'all' || scope === 'client') this._clientInformation = undefined;
    if (scope === 'all' || scope === 'verifier') this._codeVerifier = undefined;
  }

  // The user agent: GET the authorization URL, do not follow its redirect,
  // and hand the redirect_uri's query to the callback handler below.
  async redirectToAuthorization(authorizationUrl) {
    debug(`authorization request: ${authorizationUrl}`);
    const response = await loopbackFetch(authorizationUrl, { redirect: 'manual' });
    await response.body?.cancel();
    const location = response.headers.get('location');
    if (response.status < 300 || response.status > 399 || !location) {
      throw new Error(`the authorization endpoint answered ${response.status} without a redirect`);
    }
    this.pending = this._callback(new URL(location, authorizationUrl));
  }

  // _callback is the redirect_uri's handler: it is where an application checks
  // the response is to its own request (state) before using the code.
  _callback(redirect) {
    if (`${redirect.origin}${redirect.pathname}` !== REDIRECT_URI) {
      throw new Error(`the authorization endpoint redirected to ${redirect.origin}${redirect.pathname}, not to ${REDIRECT_URI}`);
    }
    const params = redirect.searchParams;
    if (params.get('state') !== this._state) throw new Error('the authorization response carries another state than the request');
    if (params.has('error')) {
      throw new Error(`the authorization server refused: ${params.get('error')} ${params.get('error_description') ?? ''}`);
    }
    const code = params.get('code');
    if (!code) throw new Error('the authorization response has no code');
    // RFC 9207: the SDK takes no iss (finishAuth(code) is all there is), so
    // it is kept only to be reported.
    const iss = params.get('iss') ?? undefined;
    debug(`authorization response: code received${iss === undefined ? ', no iss' : `, iss ${iss}`}`);
    return { code, iss };
  }
}

// JwtBearerProvider is a workload (SEP-1933, auth/wif-jwt-bearer): the RFC 7523
// JWT-bearer grant with the workload's assertion, no client authentication.
// The SDK has no provider for it; this goes through its generic hook for
// non-interactive grants (no redirectUrl, prepareTokenRequest), so discovery,
// the token request and error handling are still the SDK's.
class JwtBearerProvider {
  constructor({ clientId, assertion }) {
    this._clientInformation = { client_id: clientId };
    this._assertion = assertion;
    this._tokens = undefined;
  }

  get redirectUrl() {
    return undefined;
  }

  get clientMetadata() {
    return { client_name: NAME, redirect_uris: [], grant_types: [JWT_BEARER_GRANT], token_endpoint_auth_method: 'none' };
  }

  clientInformation() {
    return this._clientInformation;
  }

  saveClientInformation(info) {
    this._clientInformation = info;
  }

  tokens() {
    return this._tokens;
  }

  saveTokens(tokens) {
    this._tokens = tokens;
  }

  redirectToAuthorization() {
    throw new Error('the JWT-bearer grant has no authorization redirect');
  }

  saveCodeVerifier() {}

  codeVerifier() {
    throw new Error('the JWT-bearer grant has no PKCE code verifier');
  }

  prepareTokenRequest(scope) {
    const params = new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion: this._assertion });
    if (scope) params.set('scope', scope);
    return params;
  }
}

function parseContext() {
  const raw = process.env.MCP_CONFORMANCE_CONTEXT;
  if (!raw) return {};
  try {
    return JSON.parse(raw) ?? {};
  } catch (err) {
    fail(`MCP_CONFORMANCE_CONTEXT is not JSON: ${err.message}`);
  }
}

function need(context, key, scenario) {
  if (typeof context[key] !== 'string' || context[key] === '') fail(`${scenario}: MCP_CONFORMANCE_CONTEXT has no ${key}`);
  return context[key];
}

// providerFor picks the SDK provider for the scenario: the extensions'
// client_credentials providers, or the authorization-code HarnessProvider.
function providerFor(scenario, context) {
  switch (scenario) {
    case 'auth/client-credentials-basic':
      return new ClientCredentialsProvider({
        clientId: need(context, 'client_id', scenario),
        clientSecret: need(context, 'client_secret', scenario),
        clientName: NAME,
      });
    case 'auth/client-credentials-jwt':
      return new PrivateKeyJwtProvider({
        clientId: need(context, 'client_id', scenario),
        privateKey: need(context, 'private_key_pem', scenario),
        algorithm: context.signing_algorithm || 'ES256',
        clientName: NAME,
      });
    case 'auth/wif-jwt-bearer':
      return new JwtBearerProvider({
        clientId: need(context, 'client_id', scenario),
        assertion: need(context, 'valid_jwt', scenario),
      });
    case 'auth/pre-registration': {
      const preRegistered = {
        client_id: need(context, 'client_id', scenario),
        client_secret: need(context, 'client_secret', scenario),
        redirect_uris: [REDIRECT_URI],
      };
      // The authorization server the client was registered with, when the
      // context names it: stamped as the SDK stamps what it registers, so
      // the SDK presents these credentials to that server only.
      if (typeof context.issuer === 'string' && context.issuer !== '') preRegistered.issuer = context.issuer;
      return new HarnessProvider({ preRegistered });
    }
    default:
      return new HarnessProvider({ clientMetadataUrl: CLIENT_METADATA_URL });
  }
}

async function main() {
  const server = process.argv.at(-1);
  if (process.argv.length < 3 || !/^https?:\/\//i.test(server ?? '')) fail('usage: client.mjs SERVER_URL (http:// or https://)');
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  const version = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION ?? '';
  if (version && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    process.stderr.write(`${NAME}: note: protocol version ${version} is not one this SDK supports; it asks for ${LATEST_PROTOCOL_VERSION}\n`);
  }
  const context = parseContext();
  const provider = providerFor(scenario, context);
  const url = new URL(server);
  if (!isLoopback(url)) fail(`refusing a server off this machine: ${url.origin}`);

  let transport;
  let client;
  // authorized runs op, and while it fails for want of authorization that the
  // user agent just granted, finishes that authorization on the transport
  // that asked for it and runs op again.
  const authorized = async (what, op) => {
    for (let round = 0; ; round++) {
      try {
        return await op();
      } catch (err) {
        const pending = provider.pending;
        provider.pending = undefined;
        if (!(err instanceof UnauthorizedError) || !pending) throw err;
        if (round >= MAX_AUTHORIZATIONS) throw new Error(`${what}: still unauthorized after ${round} authorizations`);
        debug(`${what}: finishing authorization`);
        await transport.finishAuth(pending.code);
      }
    }
  };

  // A transport that failed to connect is closed (Client.connect closes it):
  // each attempt starts a fresh client and transport on the same provider.
  await authorized('connect', async () => {
    transport = new StreamableHTTPClientTransport(url, { authProvider: provider, fetch: loopbackFetch });
    client = new Client({ name: NAME, version: '1.0.0' }, { capabilities: {} });
    await client.connect(transport);
  });
  debug(`connected (protocol ${transport.protocolVersion ?? LATEST_PROTOCOL_VERSION})`);

  const { tools } = await authorized('tools/list', () => client.listTools());
  debug(`tools: ${tools.map((t) => t.name).join(', ')}`);
  const clientCredentials = !provider.redirectUrl;
  if (!clientCredentials || tools.some((t) => t.name === 'test-tool')) {
    await authorized('tools/call test-tool', () => client.callTool({ name: 'test-tool', arguments: {} }));
  }
  await transport.close();
}

main().then(
  () => process.exit(0),
  (err) => fail(err?.message ?? err),
);
