// The audit and operator REST routes: replay and what-if (audit), bundle export as a streamed
// .tar.gz (audit), payload erasure and policy activation without a restart (admin). Each reads
// only the caller's own tenant log. Portable: no node:* (gzip by CompressionStream).
import type { Hono } from 'hono';
import { activatePolicy, VOUCH_ENGINE_VERSION } from '../decide/index.js';
import { exportBundle, planExport, replayLog, scanErasures, whatIf, createTarWriter, eraseStoredPayload, type BundleSink, type ExportSource, type ReplaySource } from '../audit/index.js';
import { parseDigest, type Digest } from '../canonical/index.js';
import { ConfigError, InputError, StoreError, type Issue } from '../errors.js';
import { createMemoryStateStores } from '../interceptors/builtin/index.js';
import type { Json } from '../interceptors/types.js';
import { isRemoteDeclaration, parseConfigText, resolveConfigDocument, type ResolvedConfig } from '../policy/index.js';
import type { LogPort } from '../store/log-port.js';
import { buildTimestampEvidence, type TimestampEvidence } from '../timestamp/evidence-format.js';
import type { Env } from './app.js';
import type { AppDeps } from './deps.js';
import { readJsonBody } from './body.js';
import { erasureReasonOf } from './erase-reason.js';
import type { RestContext } from './routes-rest.js';

/** Swaps a tenant's policy in a running service (Node: tenant-logs.ts); absent where unsupported. */
export interface PolicyAdmin {
  activate(tenant: string, resolved: ResolvedConfig, by?: string): Promise<{ chain: string; policySet: string; interceptors: number }>;
}

export type AuditAppDeps = AppDeps & { policyAdmin?: PolicyAdmin };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function count(v: unknown, path: string, issues: Issue[]): number | undefined {
  if (v === undefined) return undefined;
  if (Number.isSafeInteger(v) && (v as number) >= 0) return v as number;
  issues.push({ path, message: 'must be a non-negative integer' });
  return undefined;
}

/** `{config: "<YAML or JSON text>"}` or `{document: {...}}`: policies inline (no file access here). */
export function parsePolicyBody(body: unknown, path = ''): ResolvedConfig {
  if (isRecord(body) && typeof body.config === 'string') {
    const text = body.config;
    return resolveConfigDocument(parseConfigText(text, text.trimStart().startsWith('{') ? 'json' : 'yaml', 'config') as Json);
  }
  if (isRecord(body) && isRecord(body.document)) return resolveConfigDocument(body.document as Json);
  throw new InputError('ERR_INPUT', 'body must be {"config": "<YAML or JSON text>"} or {"document": {...}}, policies inline', [{ path, message: 'no config' }]);
}

function parseReplayBody(body: unknown): { from?: number; to?: number; all: boolean; policy?: unknown } {
  const issues: Issue[] = [];
  if (!isRecord(body)) throw new InputError('ERR_INPUT', 'body must be a JSON object', [{ path: '', message: 'not an object' }]);
  const from = count(body.from, '/from', issues);
  const to = count(body.to, '/to', issues);
  if (body.all !== undefined && typeof body.all !== 'boolean') issues.push({ path: '/all', message: 'must be a boolean' });
  if (issues.length) throw new InputError('ERR_INPUT', 'bad replay request', issues);
  return { from, to, all: body.all === true, policy: body.policy };
}

function queryCount(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  if (!/^(0|[1-9][0-9]{0,15})$/.test(v)) throw new InputError('ERR_INPUT', `${name} must be a non-negative integer`, [{ path: `/${name}`, message: 'not an integer' }]);
  return Number(v);
}

/**
 * The log port as a replay and an export source. Entries are read one `entry(seq)` at a time:
 * an open SQLite iterator held across awaits would make the service's own appends fail (busy).
 */
function sourcesOf(port: LogPort): { replay: ReplaySource; exporting: ExportSource } {
  let erasures: Promise<Map<string, number>> | undefined;
  const entries = async function* (from: number, to: number) {
    for (let seq = from; seq < to; seq++) {
      const bytes = await port.entry(seq);
      if (!bytes) throw new StoreError('ERR_STORE_INCONSISTENT', `entry ${seq} is not stored`);
      yield { seq, bytes };
    }
  };
  const replay: ReplaySource = {
    size: () => port.size(),
    entries,
    payload: (d: Digest) => port.payload(d),
    document: async (d: Digest) => (await port.document(d))?.bytes,
    erasedAt: async (d: Digest) => (await (erasures ??= port.size().then((n) => scanErasures(entries(0, n))))).get(d),
  };
  const exporting: ExportSource = {
    origin: port.origin,
    size: () => port.size(),
    entry: (seq) => port.entry(seq),
    entries,
    checkpointAt: (s) => port.checkpointAt(s),
    latestCheckpoint: () => port.latestCheckpoint(),
    inclusionProof: (seq, size) => port.inclusionProof(seq, size),
    payload: (d: Digest) => port.payload(d),
    document: (d: Digest) => port.document(d),
  };
  return { replay, exporting };
}

export function registerAuditRoutes(app: Hono<Env>, rc: RestContext): void {
  const { deps, limits, withRole } = rc;
  const admin = (deps as AuditAppDeps).policyAdmin;
  registerAuditReadRoutes(app, rc);

  app.delete('/v1/payloads/:digest', withRole('admin'), async (c) => {
    const digest = parseDigest(c.req.param('digest'), '/digest');
    const reason = await erasureReasonOf(c.req.raw, c.req.query('reason'), limits.bodyBytes); // ?reason= or {"reason"}
    const caller = c.get('caller');
    const port = await deps.logs(caller.tenant);
    const r = await eraseStoredPayload(port, digest, { time: deps.clock.now().toISOString(), reason, by: caller.principal });
    return c.json({ digest: r.digest, erased: true, seq: r.seq, checkpoint: r.appended.checkpoint });
  });

  app.post('/v1/policy', withRole('admin'), async (c) => {
    if (!admin) throw new ConfigError('ERR_CONFIG', 'this deployment cannot activate a policy at run time');
    const resolved = parsePolicyBody(await readJsonBody(c.req.raw, limits.bodyBytes));
    return c.json({ activated: true, ...(await admin.activate(c.get('caller').tenant, resolved, c.get('caller').principal)) });
  });
}

/**
 * What an auditor reads and computes without changing the log: replay and what-if (a candidate
 * policy is activated offline, in memory, and closed), and the bundle export. Also served by the
 * gateway's listener (http/audit-app.ts).
 */
export function registerAuditReadRoutes(app: Hono<Env>, rc: Pick<RestContext, 'deps' | 'limits' | 'withRole'>): void {
  const { deps, limits, withRole } = rc;

  app.post('/v1/replay', withRole('audit'), async (c) => {
    const req = parseReplayBody(await readJsonBody(c.req.raw, limits.bodyBytes));
    const source = sourcesOf(await deps.logs(c.get('caller').tenant)).replay;
    if (req.policy === undefined) {
      const report = await replayLog(source, { from: req.from, to: req.to, includeMatches: req.all });
      return c.json({ ok: report.mismatch === 0 && report.findings.length === 0, ...report });
    }
    const resolved = parsePolicyBody(req.policy, '/policy');
    const candidate = await activatePolicy(resolved, { state: createMemoryStateStores(), remote: 'offline' });
    try {
      return c.json(await whatIf(source, candidate, { from: req.from, to: req.to, candidateHasRemote: resolved.config.interceptors.some(isRemoteDeclaration) }));
    } finally {
      await candidate.close();
    }
  });

  app.get('/v1/export', withRole('audit'), async (c) => {
    const log = await deps.logs(c.get('caller').tenant);
    const source = sourcesOf(log).exporting;
    const keys = (await deps.keys.of?.(c.get('caller').tenant)) ?? deps.keys; // this log's key history, no other tenant's
    const opts = {
      from: queryCount(c.req.query('from'), 'from'),
      to: queryCount(c.req.query('to'), 'to'),
      payloads: ['1', 'true'].includes(c.req.query('payloads') ?? ''),
      keys: { jwks: keys.jwks, vkeys: keys.vkeys.filter((v) => !v.startsWith('#')) },
      tool: { name: 'vouch', version: VOUCH_ENGINE_VERSION },
      created: deps.clock.now().toISOString(),
      // RFC 3161 stamps in the range, each proven a prefix of the bundle's tree (issue 41).
      timestamps: deps.timestamps && (async (from: number, to: number) => {
        const out: TimestampEvidence[] = [];
        for (const t of deps.timestamps!.within(log.origin, from, to)) out.push(buildTimestampEvidence(t.note, await log.consistencyProof(t.size, to), t.token));
        return out;
      }),
    };
    const plan = await planExport(source, opts); // errors before the first byte: a normal HTTP error
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const writer = writable.getWriter();
    const tar = createTarWriter((chunk) => writer.write(chunk));
    const sink: BundleSink = { file: (name, size, chunks) => tar.file(name, size, chunks) };
    void (async () => {
      try {
        await exportBundle(source, sink, opts, plan);
        await tar.finish();
        await writer.close();
      } catch (e) {
        // Headers are gone: a truncated archive (no end blocks) is what the client sees.
        deps.logLine?.({ level: 'error', msg: 'export failed', error: (e as Error).message });
        await writer.abort(e).catch(() => undefined);
      }
    })();
    const name = `vouch-${c.get('caller').tenant}-${plan.from}-${plan.to}.tar.gz`;
    return new Response(readable.pipeThrough(new CompressionStream('gzip') as unknown as TransformStream<Uint8Array, Uint8Array>), {
      headers: { 'content-type': 'application/gzip', 'content-disposition': `attachment; filename="${name}"` },
    });
  });
}
