// vouch serve: the enforcement service (interceptor endpoint + REST API) on Node.
import { readFileSync } from 'node:fs';
import { parseAuthConfig } from '../../http/auth.js';
import { startServer } from '../../http/node-server.js';
import { intOption, parse } from '../args.js';
import { EXIT, type Io } from '../io.js';

export const help = `vouch serve [--host H] [--port P] [--data DIR] [--config FILE] [--auth FILE] [--callers FILE] [--allow-origin URL]...

Run the service: POST /mcp (SEP-2624 interceptor server over MCP Streamable HTTP), the REST API
(/v1/authorize, /v1/entries/:seq, /v1/checkpoint, /v1/proofs/*), /.well-known/vouch/keys,
/healthz and /metrics. Keys and the database are created in --data on first run.

  --host H       address to bind (default 127.0.0.1)
  --port P       port (default 8787; 0 picks a free one)
  --config FILE  chain config (default DIR/vouch.yaml, else the bundled example)
  --auth FILE    JSON {jwks | jwksUrl, issuer, audience, clockSkewSeconds?, maxTokenAgeSeconds?,
                 allowOrigins?}: bearer JWTs required, each with exp and iat, at most
                 maxTokenAgeSeconds old (default 86400). Without it the service runs in
                 development mode: no tokens, loopback only.
  --allow-origin URL  a web origin (http(s)://host[:port]) besides the service's own that may call
                 it from a browser (CORS); repeat for more. Requests with any other Origin get 403,
                 and request bodies must be application/json (415), in every mode.
  --callers FILE JSON {tenant: JWKS}: keys callers co-sign requests with (_meta["io.vouch/caller-signature"]
                 or the X-Vouch-Caller-Signature header); a signature by any other key is denied.
  --checkpoint-idle S  after S seconds without new entries, sign a checkpoint over the log and publish
                 it (DIR/checkpoints/TENANT.note and a log line); default 60, 0 turns it off. One is
                 also signed on clean shutdown. Keep them elsewhere: they prove a later cut.`;

export async function run(argv: string[], io: Io): Promise<number> {
  const { values } = parse(argv, {
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: '8787' },
    config: { type: 'string' },
    auth: { type: 'string' },
    callers: { type: 'string' },
    'allow-origin': { type: 'string', multiple: true },
    'checkpoint-idle': { type: 'string', default: '60' },
  });
  if (values.help) return io.out(help), EXIT.ok;
  const auth = values.auth ? parseAuthConfig(JSON.parse(readFileSync(values.auth, 'utf8'))) : undefined;
  const server = await startServer({
    data: values.data!,
    host: values.host,
    port: intOption(values.port, 'port'),
    config: values.config,
    auth,
    callers: values.callers ? JSON.parse(readFileSync(values.callers, 'utf8')) : undefined,
    allowOrigins: values['allow-origin'],
    idleCheckpointMs: (intOption(values['checkpoint-idle'], 'checkpoint-idle') ?? 60) * 1000,
    logLine: (l) => io.err(JSON.stringify(l)),
  });
  if (!auth) io.err('WARNING: no --auth given: development mode, no tokens checked, serving loopback only. Do not expose this port.');
  const ready = { msg: 'vouch ready', url: server.url, keyId: server.keyId, policy: server.policy.chainDigest, interceptors: server.policy.interceptors.length };
  io.out(values.json ? JSON.stringify(ready) : `vouch ready on ${server.url}  key ${server.keyId}  policy ${server.policy.chainDigest.slice(0, 19)}…  (${ready.interceptors} interceptors)`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  io.err('vouch: shutting down (finishing the batch in flight)');
  await server.close();
  return EXIT.ok;
}
