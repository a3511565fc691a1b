// A protected MCP server (an OAuth 2.0 resource server) on the TypeScript
// SDK (@modelcontextprotocol/sdk, the version pinned in package.json), an
// interop target for mcpconform's judging of protected servers.
//
// Streamable HTTP (StreamableHTTPServerTransport) at the resource's path
// (/mcp) behind the SDK's requireBearerAuth middleware; Protected Resource
// Metadata (RFC 9728) at /.well-known/oauth-protected-resource/mcp through
// the SDK's metadataHandler. The 401/403 answers, their WWW-Authenticate
// challenges and bodies are the SDK's own: this harness only supplies the
// verifier, which turns every rejection into the SDK's InvalidTokenError
// carrying jose's message.
//
// Access tokens are JWTs (RFC 9068) checked with jose: the JWKS comes from
// the jwks_uri of the issuer's RFC 8414 metadata (fetched on first use),
// through createRemoteJWKSet (cached; refetched on an unknown kid, at most
// every 30 s, jose's default cooldown); jwtVerify checks the signature, alg
// ES256 only, typ at+jwt, iss, aud (must contain the resource), exp
// (required), nbf and iat with 60 s clock tolerance.
//
// usage: node server.mjs --issuer URL [--port 3000] [--resource URL]
//        [--scopes "mcp:tools"] [--stateless]
// Each flag falls back to an environment variable: PORT, ISSUER, RESOURCE,
// SCOPES, STATELESS=1. --resource defaults to http://127.0.0.1:PORT/mcp;
// --scopes (required on every request) defaults to "mcp:tools", "" = none.
// It binds 127.0.0.1 only.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createRemoteJWKSet, jwtVerify, errors as joseErrors } from 'jose';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { metadataHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/metadata.js';
import { getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { InvalidTokenError, ServerError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

// The SDK's exports map its package.json away; read it off the disk.
const sdkVersion = (() => {
  try {
    return JSON.parse(readFileSync(new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url))).version;
  } catch {
    return 'unknown';
  }
})();

const LEEWAY_S = 60;
const HOST = '127.0.0.1';

const { values: args } = parseArgs({
  options: {
    port: { type: 'string' },
    issuer: { type: 'string' },
    resource: { type: 'string' },
    scopes: { type: 'string' },
    stateless: { type: 'boolean' },
  },
});
const port = Number(args.port ?? process.env.PORT ?? 3000);
const issuer = args.issuer ?? process.env.ISSUER;
if (!issuer) {
  console.error('ts-auth-server: --issuer (or ISSUER) is required');
  process.exit(2);
}
const resource = args.resource ?? process.env.RESOURCE ?? `http://${HOST}:${port}/mcp`;
const requiredScopes = (args.scopes ?? process.env.SCOPES ?? 'mcp:tools').split(/\s+/).filter(Boolean);
const stateless = args.stateless ?? ['1', 'true'].includes(process.env.STATELESS ?? '');
const resourceUrl = new URL(resource);
const prmUrl = getOAuthProtectedResourceMetadataUrl(resourceUrl);

// The JWKS, found through the issuer's metadata on first use. A failed
// discovery is forgotten so the next request tries again.
let jwksPromise;
function jwks() {
  jwksPromise ??= (async () => {
    const metaUrl = `${issuer.replace(/\/$/, '')}/.well-known/oauth-authorization-server`;
    const res = await fetch(metaUrl, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(10_000) });
    if (!res.ok) throw new Error(`GET ${metaUrl}: ${res.status}`);
    const meta = await res.json();
    if (meta.issuer !== issuer) throw new Error(`metadata issuer ${meta.issuer} is not ${issuer}`);
    if (!meta.jwks_uri) throw new Error('metadata has no jwks_uri');
    return createRemoteJWKSet(new URL(meta.jwks_uri));
  })().catch(err => {
    jwksPromise = undefined;
    throw err;
  });
  return jwksPromise;
}

const verifier = {
  async verifyAccessToken(token) {
    let keys;
    try {
      keys = await jwks();
    } catch (err) {
      // Not the token's fault: the SDK answers a ServerError with 500.
      throw new ServerError(`cannot fetch the issuer's JWKS: ${err.message}`);
    }
    let payload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer,
        audience: resource,
        algorithms: ['ES256'],
        typ: 'at+jwt',
        clockTolerance: LEEWAY_S,
        requiredClaims: ['exp'],
      }));
    } catch (err) {
      if (err instanceof joseErrors.JOSEError) throw new InvalidTokenError(err.message);
      throw err;
    }
    return {
      token,
      clientId: String(payload.client_id ?? ''),
      scopes: typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [],
      expiresAt: payload.exp,
      resource: resourceUrl,
      extra: { sub: payload.sub, jti: payload.jti },
    };
  },
};

function buildServer() {
  const server = new McpServer({ name: 'ts-auth-server', version: sdkVersion });
  server.registerTool('test_simple_text', { description: 'Returns a fixed text response' }, async () => ({
    content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
  }));
  server.registerTool('whoami', { description: 'Returns what the access token of this request said' }, async extra => ({
    content: [{
      type: 'text',
      text: JSON.stringify(extra.authInfo
        ? { sub: extra.authInfo.extra?.sub, client_id: extra.authInfo.clientId, scopes: extra.authInfo.scopes, exp: extra.authInfo.expiresAt }
        : null),
    }],
  }));
  return server;
}

const app = createMcpExpressApp({ host: HOST });
app.use(resourceUrl.pathname === '/' ? '/.well-known/oauth-protected-resource' : `/.well-known/oauth-protected-resource${resourceUrl.pathname}`,
  metadataHandler({
    resource,
    authorization_servers: [issuer],
    scopes_supported: requiredScopes.length ? requiredScopes : undefined,
    bearer_methods_supported: ['header'],
    resource_name: `TypeScript SDK ${sdkVersion} protected MCP server (mcpconform interop)`,
  }));

const bearer = requireBearerAuth({
  verifier,
  requiredScopes,
  resourceMetadataUrl: prmUrl,
  expectedResource: resourceUrl,
});

const transports = new Map();
function badSession(res) {
  res.status(400).json({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: No valid session ID provided' }, id: null });
}

app.post(resourceUrl.pathname, bearer, async (req, res) => {
  try {
    if (stateless) {
      const server = buildServer();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => { transport.close(); server.close(); });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
      return;
    }
    const sid = req.headers['mcp-session-id'];
    let transport = sid ? transports.get(sid) : undefined;
    if (!transport) {
      if (sid || !isInitializeRequest(req.body)) return badSession(res);
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: id => transports.set(id, transport),
      });
      transport.onclose = () => transport.sessionId && transports.delete(transport.sessionId);
      await buildServer().connect(transport);
    }
    await transport.handleRequest(req, res, req.body);
  } catch (err) {
    console.error('ts-auth-server: handling POST:', err);
    if (!res.headersSent) res.status(500).json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null });
  }
});
const sessionRequest = async (req, res) => {
  if (stateless) {
    res.set('Allow', 'POST').status(405).json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null });
    return;
  }
  const transport = transports.get(req.headers['mcp-session-id']);
  if (!transport) return badSession(res);
  await transport.handleRequest(req, res);
};
app.get(resourceUrl.pathname, bearer, sessionRequest);
app.delete(resourceUrl.pathname, bearer, sessionRequest);

app.listen(port, HOST, err => {
  if (err) {
    console.error('ts-auth-server:', err);
    process.exit(1);
  }
  console.error(`ts-auth-server: MCP endpoint http://${HOST}:${port}${resourceUrl.pathname} (resource ${resource}), metadata ${prmUrl}, issuer ${issuer}, required scopes ${JSON.stringify(requiredScopes)}${stateless ? ', stateless' : ''}`);
});
