// vouch serve: the enforcement service (interceptor endpoint + REST API) on Node.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAuthConfig } from '../../http/auth.js';
import { startServer } from '../../http/node-server.js';
import { initDataDir } from '../../store/node.js';
import { intOption, parse } from '../args.js';
import { EXIT, UsageError, type Io } from '../io.js';
import { diagnostics, LOG_LEVEL_HELP, LOG_LEVEL_OPTION, parseLogLevel } from '../log-lines.js';
import { watchConfig } from './_config-watch.js';
import { activateHint, formatReady, readyReport } from './_serve-ready.js';
import { archiveOption } from './_archive-option.js';
import { serveReadOnly } from './_serve-read-only.js';
import { writeExampleConfig } from './init.js';

export const help = `vouch serve [--host H] [--port P] [--data DIR] [--config FILE] [--auth FILE] [--callers FILE [--require-caller-signature]] [--allow-origin URL]... [--otlp URL] [--witnesses FILE] [--retention FILE] [--archive DIR|off] [--log-level L]
vouch serve --read-only [--host H] [--port P] [--data DIR] [--auth FILE] [--allow-origin URL]...

Run the service: POST /mcp (SEP-2624 interceptor server over MCP Streamable HTTP), the REST API
(/v1/authorize, /v1/entries/:seq, /v1/checkpoint, /v1/proofs/*), /.well-known/vouch/keys,
/healthz and /metrics, the audit console at /audit/, and each tenant's log as C2SP tlog-tiles
under /tlog/<tenant>/ (checkpoint, tile/<L>/<N>, tile/entries/<N>; audit role). Keys, the database and (without
--config) the example config DIR/vouch.yaml with its Cedar files are created in --data on first
run. The ready lines name the console, the config file, and per tenant the policy in force with
the \`policy\` entry it came from; a config file that is not in force (a pinned policy, or an
edit while running) is a WARNING saying how to activate it (vouch policy activate FILE).

  --read-only    attach to a data directory a running gateway or \`vouch serve\` holds (no writer
                 lock, nothing written there: SQLite opened read-only): the audit routes, receipts
                 (GET /v1/entries/SEQ), proofs, tiles, keys and the console, each log served only as
                 far as a checkpoint its key history signs covers it, its entries rehashed to that
                 root and checked again at every read (a row changed under it stops that log: 503
                 ERR_STORE_INCONSISTENT). Writes (decisions, policy, keys, erasure) get 409
                 ERR_READ_ONLY. docs/operating.md, "Read-only attach".
  --host H       address to bind (default 127.0.0.1)
  --port P       port (default 8787; 0 picks a free one)
  --config FILE  chain config (default DIR/vouch.yaml, created from the bundled example if missing)
  --auth FILE    JSON {jwks (object or URL), issuer, audience? | resource?, authorizationServers?,
                 scopes?, tenant?, clockSkewSeconds?, maxTokenAgeSeconds?, allowOrigins?}: bearer
                 JWTs required, each with exp and iat, at most maxTokenAgeSeconds old (default
                 86400), audience = audience (default: resource). With resource, an OAuth resource
                 server: /.well-known/oauth-protected-resource, WWW-Authenticate on each 401; scopes
                 maps the token's scope claim to roles ({"mcp:enforce": ["enforce"]}). Without
                 --auth the service runs in development mode: no tokens, loopback only.
  --allow-origin URL  a web origin (http(s)://host[:port]) besides the service's own that may call
                 it from a browser (CORS); repeat for more. Requests with any other Origin get 403,
                 and request bodies must be application/json (415), in every mode.
  --callers FILE JSON {tenant: JWKS}: keys callers co-sign requests with (_meta["io.vouch/caller-signature"]
                 or the X-Vouch-Caller-Signature header); a signature by any other key is denied.
  --require-caller-signature  co-signing required: a request without a caller signature is denied
                 (and recorded as such), not just decided unsigned. Needs --callers.
  --checkpoint-idle S  after S seconds without new entries, sign a checkpoint over the log and publish
                 it (DIR/checkpoints/TENANT.note; a log line names its size, root and file, the note
                 itself is logged at debug); default 60, 0 turns it off. One is also signed on clean
                 shutdown. Keep them elsewhere: they prove a later cut.
  --max-open-tenants N  tenant logs kept open at most (default 256; each holds a few file handles):
                 past it, the least recently used idle one closes (after a checkpoint over it is
                 signed and published) and opens again at its next request, checked like any open.
                 With more than 16 tenant logs, none is opened at start: each opens at first use.
  --tenant-idle S  close a tenant log unused for S seconds (default 300; 0: only the cap closes).
                 /metrics lists per-tenant lines for at most 20 tenants, then totals (docs/operating.md).
  --otlp URL     export each log entry as an OpenTelemetry span and log record over OTLP/HTTP (JSON)
                 to the collector at URL (e.g. http://127.0.0.1:4318; /v1/traces and /v1/logs are
                 appended), continuing the caller's W3C trace (_meta.traceparent or the traceparent
                 header). Off by default; batched after the entry is durable; failures are counted in
                 /metrics (vouch_otlp_export_failures_total), never a decision's failure.
  --witnesses FILE  JSON {witnesses: [{url, vkeys: [cosigner vkeys]}], timeoutMs?, retries?, intervalMs?}
                 (default DIR/witnesses.json when present): each new checkpoint is sent to every
                 witness (c2sp.org/tlog-witness add-checkpoint, with a consistency proof), in the
                 background, as signed: with the log's Ed25519 and ML-DSA-44 lines, the keys a
                 public witness is given (docs/witnesses.md). Their cosignatures are attached to
                 the checkpoints served (GET /v1/checkpoint, receipts from /v1/entries/:seq, proofs,
                 bundles); the newest cosigned checkpoint is at GET /tlog/<hex SHA-256 of the
                 origin>/checkpoint (tlog-witness monitoring). A witness that is down never delays
                 a decision; /metrics says how far behind each one is (vouch_witness_behind_entries).
  --retention FILE  JSON {payloadDays?, tenants?: {TENANT: days | null}, everyMinutes?} (default
                 DIR/retention.json when present): at start and every everyMinutes (60), payloads no
                 entry has named for that many days are erased, each batch listed first in a signed
                 erasure entry; entries, proofs and receipts stay valid (docs/retention.md).
  --archive DIR  where each tenant log's sealed history is written as static C2SP tlog-tiles
                 (DIR/<tenant>/checkpoint, tile/<L>/<N>, tile/entries/<N>), in the background after
                 commits; any static file server can serve it (default DATA/archive; off: none).
                 The background audit reads sealed history from it. docs/archive.md.
${LOG_LEVEL_HELP}
                 Log lines are JSON on stderr ({t, level, msg, ...}).`;

export const NO_WITNESS_WARNING =
  'WARNING: no witness configured (--witnesses FILE or DATA/witnesses.json): nothing off this machine vouches for the log\'s end, so a clean cut of its newest entries goes unseen unless someone holds a later checkpoint. Run at least one `vouch witness` off this machine and list it (docs/witnesses.md, "Running a witness").';

/** A cap of 0 would open nothing: refused like any bad flag. */
function positive(n: number, name: string): number {
  if (n < 1) throw new UsageError(`--${name} takes an integer of at least 1`);
  return n;
}

export async function run(argv: string[], io: Io): Promise<number> {
  const { values } = parse(argv, {
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: '8787' },
    config: { type: 'string' },
    auth: { type: 'string' },
    callers: { type: 'string' },
    'require-caller-signature': { type: 'boolean', default: false },
    'allow-origin': { type: 'string', multiple: true },
    'checkpoint-idle': { type: 'string', default: '60' },
    'max-open-tenants': { type: 'string', default: '256' },
    'tenant-idle': { type: 'string', default: '300' },
    otlp: { type: 'string' },
    witnesses: { type: 'string' },
    retention: { type: 'string' },
    'read-only': { type: 'boolean', default: false },
    archive: { type: 'string' },
    ...LOG_LEVEL_OPTION,
  });
  if (values.help) return io.out(help), EXIT.ok;
  const log = diagnostics(io, parseLogLevel(values['log-level']));
  const auth = values.auth ? parseAuthConfig(JSON.parse(readFileSync(values.auth, 'utf8'))) : undefined;
  const data = values.data!;
  const archive = archiveOption(values.archive); // before anything is created in DATA
  if (values['read-only']) return serveReadOnly({ data, host: values.host!, port: intOption(values.port, 'port'), auth, allowOrigins: values['allow-origin'], json: values.json, given: argv }, log, io);
  let config = values.config;
  let configCreated = false;
  if (config === undefined) {
    // First run: the example config lands in the data directory to be edited, and is what runs.
    initDataDir(data);
    config = join(data, 'vouch.yaml');
    // Only a data directory without a config gets the example: an existing one is used as it is
    // (a policy file it names that is missing is an error, not replaced by the example's).
    if (!existsSync(config)) configCreated = writeExampleConfig(data).some((f) => f.endsWith('vouch.yaml'));
  }
  const server = await startServer({
    data,
    host: values.host,
    port: intOption(values.port, 'port'),
    config,
    auth,
    callers: values.callers ? JSON.parse(readFileSync(values.callers, 'utf8')) : undefined,
    requireCallerSignature: values['require-caller-signature'],
    allowOrigins: values['allow-origin'],
    idleCheckpointMs: (intOption(values['checkpoint-idle'], 'checkpoint-idle') ?? 60) * 1000,
    maxOpenTenants: positive(intOption(values['max-open-tenants'], 'max-open-tenants') ?? 256, 'max-open-tenants'),
    tenantIdleMs: (intOption(values['tenant-idle'], 'tenant-idle') ?? 300) * 1000,
    logLine: log.line,
    otlp: values.otlp,
    witnesses: values.witnesses,
    archive: values.archive === 'off' ? false : archive,
    retention: values.retention,
  });
  if (!auth) log.text('warn', 'WARNING: no --auth given: development mode, no tokens checked, serving loopback only. Do not expose this port.');
  // Production without a witness: nothing off this machine can show that the log's end was cut (docs/threat-model.md).
  else if (server.witnesses === 0) log.text('warn', NO_WITNESS_WARNING);
  // Signals first: a SIGTERM right after the ready line (or during the lines after it) shuts down cleanly.
  const stopped = new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  // Development mode serves the `default` tenant: its log is opened (and its policy recorded) now;
  // so are the others when there are few (many: each at its first use, and not listed here).
  const tenants = [...new Set([...(auth ? [] : ['default']), ...server.openedAtStart])];
  let ready;
  try {
    ready = await readyReport(server, { tenants, configCreated });
  } catch (e) {
    await server.close();
    throw e;
  }
  const text = formatReady(ready, data);
  if (values.json) io.out(JSON.stringify(ready));
  else for (const l of text.lines) io.out(l);
  for (const w of text.warnings) {
    if (values.json) log.line({ level: 'warn', msg: w });
    else log.text('warn', w);
  }
  const stopWatching = await watchConfig({
    config,
    loadedChain: server.policy.chainDigest,
    inForce: async () => Promise.all(tenants.map(async (t) => ({ tenant: t, chain: (await server.policyOf(t)).chainDigest }))),
    hint: (t) => activateHint(config, data, t, server.url),
    warn: (w) => (values.json ? log.line({ level: 'warn', ...w }) : log.text('warn', `WARNING: ${w.msg}`)),
  });
  await stopped;
  stopWatching();
  log.text('info', 'vouch: shutting down (finishing the batch in flight)');
  await server.close();
  return EXIT.ok;
}
