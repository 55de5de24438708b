// vouch gateway: one policy in front of any MCP server. Relays a client (stdio, or Streamable
// HTTP with --listen) to an upstream server (a command over stdio, or a URL), deciding and
// signing every message either way. Over stdio, stdout is the protocol: diagnostics go to stderr.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAuthConfig, type AuthConfig } from '../../http/auth.js';
import { jwksKid } from '../../crypto/index.js';
import { ConfigError } from '../../errors.js';
import { EXAMPLE_CONFIG } from '../../policy/load-config.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { GatewayError } from '../../mcp/gateway-errors.js';
import { listenGateway } from '../../mcp/gateway-http.js';
import { DEFAULT_CALLER_IDLE_MS } from '../../mcp/gateway-http-modern.js';
import { formatOffer, probeUpstream, surveyUpstream, type UpstreamOffer } from '../../mcp/gateway-offer.js';
import { DEFAULT_PRINCIPAL, DEFAULT_ROLES, DEFAULT_TENANT, openGateway, type GatewayRuntime, type UpstreamSpec } from '../../mcp/gateway-node.js';
import { DEFAULT_UPSTREAM_ERA, UPSTREAM_ERAS, type UpstreamEra } from '../../mcp/gateway-upstream.js';
import { intOption, parse } from '../args.js';
import { EXIT, UsageError, type Io } from '../io.js';
import { diagnostics, LOG_LEVEL_HELP, LOG_LEVEL_OPTION, parseLogLevel, type Diagnostics } from '../log-lines.js';

/** A day: past it an idle caller's upstream connection (a child process, a socket) is a leak, not a cache. */
const MAX_CALLER_IDLE_S = 86_400;

export const help = `vouch gateway (--upstream-cmd "COMMAND ARGS" | --upstream-url URL) [options]

Stand between an MCP client and an MCP server. Every request either way (tools, prompts,
resources, sampling, elicitation, roots) runs through the interceptor chain; a deny is an MCP
error carrying its signed receipt. An allowed answer's _meta names its decisions
("io.vouch/seq", "io.vouch/response-seq") and where their receipts are: with --listen their URLs
("io.vouch/receipt-url", GET /v1/entries/SEQ on this listener), over stdio the command that
prints them ("io.vouch/receipt-command": vouch receipt SEQ --data DIR). Signed receipts ready in
time are attached ("io.vouch/receipt"); a call whose _meta has "io.vouch/receipt": "attach" gets
them attached always (docs/gateway-evidence.md). Each forwarded request is logged before it is
sent, and what ran is logged after it.

At start it tells the operator on stderr what the upstream offers (tools, prompts, resources),
what the policy hides from this principal, by name, and which config to edit. With --listen it
also serves /.well-known/vouch/keys (JWKS), /.well-known/vouch/vkeys and /healthz beside /mcp,
and read-only what vouch serve serves an auditor: GET /v1/entries/SEQ (the receipt),
/v1/checkpoint, /v1/proofs/..., /v1/payloads/..., /v1/export, /v1/keys, /tlog/... and the
console at /audit/ (with --auth: a token with the audit role, for the gateway's tenant).
Its keys, also over stdio and while it runs: \`vouch keys export --data DIR\`; receipts, proofs
and the console from its data directory while it runs: \`vouch serve --read-only --data DIR\`.

  --upstream-cmd CMD   start the server as a child process over stdio (split like a shell, never run by one)
  --upstream-url URL   connect to a Streamable HTTP server
  --upstream-era E     the MCP era spoken to the server: "auto" (default: probe with server/discover and
                       speak 2026-07-28 if it answers, else the 2025 initialize handshake; over stdio the
                       probe runs on a second, short-lived server process and waits at most 10 s),
                       "legacy" (2025 only, no probe) or "2026-07-28" (that revision or fail)
  --listen HOST:PORT   serve clients over Streamable HTTP at http://HOST:PORT/mcp (loopback only
                       without --auth); default: serve one client over this process's stdin/stdout
  --caller-idle S      with --listen: seconds a 2026-07-28 caller's upstream connection outlives its
                       last request (such a caller never says it is done; default ${DEFAULT_CALLER_IDLE_MS / 1000}, 1 to ${MAX_CALLER_IDLE_S})
  --auth FILE          with --listen: an OAuth resource server. Every /mcp request needs a bearer JWT
                       for this resource; the token's subject and roles (and mapped scopes) are the
                       principal and roles for policy. Same JSON as vouch serve --auth; "resource"
                       defaults to the listener's /mcp URL. Serves /.well-known/oauth-protected-resource.
  --config FILE        chain config (default DIR/vouch.yaml, else the bundled example)
  --tenant T           tenant log to write (default ${DEFAULT_TENANT})
  --principal P        who the client is, for policy (default ${DEFAULT_PRINCIPAL})
  --role R             a role of the principal, for policy (repeatable; default ${DEFAULT_ROLES.join(', ')}, the
                       role the example policy asks of tool calls: giving --role replaces it, so name it
                       too, e.g. --role tool-user --role operator for the example's write tools)
  --server-name NAME   the upstream's name for policy and entries (default: from the command or URL)
  --env NAME[=VALUE]   pass an environment variable to the upstream command (repeatable)
  --timeout-ms N       per forwarded request, reset by progress (default 300000)
  --wait W             what a forwarded call waits for: "durable" (default: forward once the entry
                       is committed, fsync'd; receipts are attached where ready, the rest are served
                       at GET /v1/entries/SEQ) or "signed" (each answer carries its signed receipt,
                       one checkpoint signature later; denies always carry theirs)
  --attach-receipts    wait for every allowed answer's signed receipts and attach them, as if each
                       call asked with _meta "io.vouch/receipt": "attach" (forwarding still waits
                       for --wait only; the answer waits one checkpoint signature after the upstream)
  --otlp URL           export each log entry as an OpenTelemetry span and log record over OTLP/HTTP
                       to the collector at URL (e.g. http://127.0.0.1:4318), continuing the client's
                       trace (params._meta.traceparent). Off by default; never delays a message.
${LOG_LEVEL_HELP.replace('  --log-level L  ', '  --log-level L        ')}
                       (log lines are JSON on stderr: {t, level, msg, ...})
  --quiet              no diagnostics on stderr at all`;

function parseListen(v: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(v) ?? (/^\d+$/.test(v) ? [v, undefined, '127.0.0.1', v] : null);
  if (!m) throw new UsageError('--listen takes HOST:PORT (e.g. 127.0.0.1:8788)');
  return { host: m[1] ?? m[2], port: intOption(m[3], 'listen')! };
}

function parseCallerIdle(v: string | undefined, listening: boolean): number | undefined {
  if (v === undefined) return undefined;
  if (!listening) throw new UsageError('--caller-idle applies to --listen only (over stdio there is one client, and its hang-up ends the session)');
  if (!/^[1-9][0-9]*$/.test(v) || Number(v) > MAX_CALLER_IDLE_S) throw new UsageError(`--caller-idle takes whole seconds from 1 to ${MAX_CALLER_IDLE_S}, got ${JSON.stringify(v)}`);
  return Number(v) * 1000;
}

function parseEnv(items: string[] | undefined): Record<string, string> | undefined {
  if (!items?.length) return undefined;
  const env: Record<string, string> = {};
  for (const item of items) {
    const eq = item.indexOf('=');
    const name = eq < 0 ? item : item.slice(0, eq);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new UsageError(`--env ${JSON.stringify(item)}: not NAME or NAME=VALUE`);
    const value = eq < 0 ? process.env[name] : item.slice(eq + 1);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

export async function run(argv: string[], io: Io): Promise<number> {
  const { values } = parse(argv, {
    'upstream-cmd': { type: 'string' },
    'upstream-url': { type: 'string' },
    'upstream-era': { type: 'string', default: DEFAULT_UPSTREAM_ERA },
    listen: { type: 'string' },
    'caller-idle': { type: 'string' },
    auth: { type: 'string' },
    config: { type: 'string' },
    tenant: { type: 'string', default: DEFAULT_TENANT },
    principal: { type: 'string', default: DEFAULT_PRINCIPAL },
    role: { type: 'string', multiple: true },
    'server-name': { type: 'string' },
    env: { type: 'string', multiple: true },
    'timeout-ms': { type: 'string' },
    wait: { type: 'string' },
    'attach-receipts': { type: 'boolean', default: false },
    otlp: { type: 'string' },
    quiet: { type: 'boolean', default: false },
    ...LOG_LEVEL_OPTION,
  });
  if (values.help) return io.out(help), EXIT.ok;
  const log = diagnostics(values.quiet ? undefined : io, parseLogLevel(values['log-level']));
  const cmd = values['upstream-cmd'];
  const url = values['upstream-url'];
  if ((cmd === undefined) === (url === undefined)) throw new UsageError('give exactly one of --upstream-cmd or --upstream-url');
  if (url !== undefined && values.env) throw new UsageError('--env applies to --upstream-cmd only');
  const upstream: UpstreamSpec = cmd !== undefined ? { command: cmd, env: parseEnv(values.env) } : { url: url! };
  const upstreamEra = values['upstream-era'] as UpstreamEra;
  if (!UPSTREAM_ERAS.includes(upstreamEra)) throw new UsageError(`--upstream-era takes ${UPSTREAM_ERAS.map((e) => `"${e}"`).join(', ')}`);
  const listen = values.listen === undefined ? undefined : parseListen(values.listen);
  if (values.auth !== undefined && !listen) throw new UsageError('--auth applies to --listen only (over stdio the client is this process\'s parent)');
  const auth = values.auth === undefined ? undefined : readAuth(values.auth);
  const callerIdleMs = parseCallerIdle(values['caller-idle'], listen !== undefined);
  // Durable by default (issue 17): an agent's call is not held for a post-quantum signature; the
  // entry is fsync'd before anything is forwarded, and its checkpoint follows within the bound.
  const wait = values.wait ?? 'durable';
  if (wait !== 'signed' && wait !== 'durable') throw new UsageError('--wait takes "signed" or "durable"');
  const onLine = log.enabled('error') ? log.line : undefined;

  const rt = await openGateway({
    data: values.data!,
    config: values.config,
    tenant: values.tenant,
    principal: values.principal,
    roles: values.role,
    serverName: values['server-name'],
    upstream,
    upstreamEra,
    timeoutMs: intOption(values['timeout-ms'], 'timeout-ms'),
    wait,
    attachReceipts: values['attach-receipts'],
    onLine,
    otlp: values.otlp,
  });
  try {
    // The bundled example is not the operator's to edit: point at where `vouch init` puts their copy.
    const bundled = rt.configPath === resolve(EXAMPLE_CONFIG.pathname) ? { ownConfig: join(resolve(values.data!), 'vouch.yaml') } : {};
    // The offer summary is info: below it, the upstream is not even listed for it.
    const tell = log.enabled('info') ? (o: UpstreamOffer) => formatOffer({ ...o, ...bundled }).forEach((l) => log.text('info', `vouch gateway: ${l}`)) : undefined;
    return listen ? await serveHttp(rt, { ...listen, auth, callerIdleMs }, io, log, tell) : await serveStdio(rt, values.data!, onLine, tell);
  } catch (e) {
    // An upstream that cannot be started is a setup problem, not an internal failure.
    if (e instanceof GatewayError) throw new ConfigError('ERR_CONFIG', e.message);
    throw e;
  } finally {
    await rt.close(); // sessions, upstream, the log batch in flight, the databases
  }
}

function readAuth(file: string): AuthConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ConfigError('ERR_CONFIG', `--auth ${file}: ${(e as Error).message}`);
  }
  return parseAuthConfig(raw, '/auth', { resourceLater: true });
}

function untilSignal(): Promise<string> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
}

type Tell = (o: UpstreamOffer) => void;

/** The ML-DSA-65 signing key's JWKS kid (what the JWKS, `vouch keys export` and the console show): the ready lines name it as `vouch serve` does. */
function signingKid(rt: GatewayRuntime): string {
  const dd = rt.dataDir;
  const k = dd.keys.find((x) => x.alg === 'ML-DSA-65') ?? dd.keys[0];
  return jwksKid(dd.keyName, k.alg, k.publicKey);
}

/** The summary in the background: it never delays the client, and a failure is only a diagnostic. */
function survey(p: () => Promise<UpstreamOffer>, tell: Tell | undefined, onLine?: (l: Record<string, unknown>) => void): Promise<void> {
  if (!tell) return Promise.resolve();
  return p().then(tell, (e) => onLine?.({ level: 'warn', msg: 'could not list what the upstream offers', error: String(e) }));
}

async function serveStdio(rt: GatewayRuntime, data: string, onLine?: (l: Record<string, unknown>) => void, tell?: Tell): Promise<number> {
  const gateway = await rt.start(new StdioServerTransport());
  // Over stdio nothing is published: the ready line says where the keys and the receipts are (issue 37).
  const d = /^[\w./-]+$/.test(data) ? data : JSON.stringify(data);
  onLine?.({ msg: 'vouch gateway ready (stdio)', server: rt.serverName, tenant: rt.tenant, principal: rt.principal, policy: rt.policies.clientToServer.chainDigest, log: rt.log.origin, kid: signingKid(rt), config: rt.configPath, wait: rt.wait, receipts: rt.receipts.describe(), keys: `vouch keys export --data ${d} --tenant ${rt.tenant}`, audit: `vouch serve --read-only --data ${d}` });
  // Over the session's own upstream connection: nothing of it reaches the client or the log.
  const surveyed = survey(() => surveyUpstream(gateway.client, gateway.capabilities, rt.policies.clientToServer, rt.viewer(), rt.configPath), tell, onLine);
  // The client hanging up (stdin closes) ends the session, as does a signal.
  const stdinEnded = new Promise<string>((resolve) => {
    // It may have ended already (a client that hung up before the upstream was ready): no event comes again.
    if (process.stdin.readableEnded || process.stdin.destroyed) resolve('stdin closed');
    process.stdin.once('end', () => resolve('stdin closed'));
    process.stdin.once('close', () => resolve('stdin closed'));
  });
  const why = await Promise.race([gateway.closed.then(() => 'client closed'), stdinEnded, untilSignal()]);
  onLine?.({ msg: 'vouch gateway shutting down', why });
  await gateway.close();
  await surveyed;
  return EXIT.ok;
}

async function serveHttp(rt: GatewayRuntime, at: { host: string; port: number; auth?: AuthConfig; callerIdleMs?: number }, io: Io, log: Diagnostics, tell?: Tell): Promise<number> {
  const onLine = log.line;
  const listening = await listenGateway(rt, at);
  const base = listening.url.slice(0, -'/mcp'.length);
  io.out(`vouch gateway on ${listening.url} -> ${rt.serverName}  tenant ${rt.tenant}  principal ${rt.principal}  policy ${rt.policies.clientToServer.chainDigest.slice(0, 19)}…  wait ${rt.wait}  key ${signingKid(rt)} (JWKS kid)`);
  io.out(`  keys ${base}/.well-known/vouch/keys  vkeys ${base}/.well-known/vouch/vkeys  health ${base}/healthz`);
  io.out(`  receipts ${rt.receipts.base}/v1/entries/SEQ  console ${rt.receipts.base}/audit/`);
  if (listening.resource) io.out(`  oauth: tokens for ${listening.resource.resource} from ${listening.resource.authorizationServers.join(', ')}; metadata ${listening.resource.metadataUrl}`);
  else log.text('warn', 'vouch gateway: no --auth: no tokens checked, serving loopback only');
  // No session yet: a short-lived upstream of its own, listed once at start.
  const surveyed = survey(() => probeUpstream(rt), tell, onLine);
  const why = await untilSignal();
  await surveyed;
  onLine?.({ msg: 'vouch gateway shutting down', why });
  await listening.close();
  return EXIT.ok;
}
