// The REST API: decisions for apps that run tools themselves, and the read side for auditors.
// Each tenant reads only its own log: the tenant comes from the token, never from the URL.
import type { Context, Hono } from 'hono';
import { parseDigest, toHex, utf8 } from '../canonical/index.js';
import { InputError, VouchError } from '../errors.js';
import { decideParams, parseExecuteChainParams } from '../decide/index.js';
import { hashLeaf } from '../log/index.js';
import { buildCoseReceipt, buildReceipt, coseSignatureCache, COSE_MEDIA_TYPE } from '../receipt/index.js';
import { buildTimestampEvidence } from '../timestamp/evidence-format.js';
import type { Env } from './app.js';
import { readJsonBody } from './body.js';
import { rolesForPolicy, type AppDeps, type Limits, type Role } from './deps.js';
import type { Metrics } from './metrics.js';
import { durableAnswer, WAIT_META, waitOf } from './wait.js';
import type { PrecheckFn } from './routes-execution.js';

export interface RestContext {
  deps: AppDeps;
  limits: Limits;
  metrics: Metrics;
  withRole: (role: Role) => (c: Context<Env>, next: () => Promise<void>) => Promise<void>;
  /** vouch's own checks before a decision (caller co-signature header): routes-execution.ts. */
  precheck?: PrecheckFn;
}

function intParam(v: string | undefined, name: string, required = true): number | undefined {
  if (v === undefined) {
    if (required) throw new InputError('ERR_INPUT', `query parameter ${name} is required`, [{ path: `/${name}`, message: 'required' }]);
    return undefined;
  }
  if (!/^(0|[1-9][0-9]{0,15})$/.test(v) || !Number.isSafeInteger(Number(v))) throw new InputError('ERR_INPUT', `${name} must be a non-negative integer`, [{ path: `/${name}`, message: 'not an integer' }]);
  return Number(v);
}

export function registerRestRoutes(app: Hono<Env>, rc: RestContext): void {
  const { deps, limits, metrics, withRole } = rc;

  app.post('/v1/authorize', withRole('enforce'), async (c) => {
    const caller = c.get('caller');
    const t0 = deps.clock.monotonic();
    const raw = await readJsonBody(c.req.raw, limits.bodyBytes);
    const p = parseExecuteChainParams(raw);
    // What the answer waits for (wait.ts): the body's `wait`, else _meta's; default the signed receipt.
    const wait = waitOf((raw as { wait?: unknown }).wait, '/wait') ?? waitOf(p.meta?.[WAIT_META], `/_meta/${WAIT_META}`);
    // The HTTP traceparent header (with its tracestate, never another's), when the body's _meta
    // names none: recorded like _meta's (decide/decide-params.ts).
    const tp = c.req.header('traceparent');
    if (tp !== undefined && p.meta?.traceparent === undefined) {
      const { tracestate: _ts, ...meta } = p.meta ?? {};
      const ts = c.req.header('tracestate');
      p.meta = { ...meta, traceparent: tp, ...(ts !== undefined && { tracestate: ts }) };
    }
    const [log, policy] = await Promise.all([deps.logs(caller.tenant), deps.policy(caller.tenant)]);
    const { outcome, receipt } = await decideParams(p, { principal: caller.principal, tenant: caller.tenant, roles: rolesForPolicy(caller) }, {
      policy,
      log,
      now: deps.clock.now,
      clock: deps.clock,
      precheck: rc.precheck && ((req) => rc.precheck!(caller, log, policy, req)),
      callerSignatureHeader: c.req.header('x-vouch-caller-signature'),
      wait,
      // A durable answer names where its receipt will be (GET /v1/entries/:seq): nothing here reads `signed`.
      followSigned: false,
    });
    metrics.decision(caller.tenant, outcome.effect, deps.clock.monotonic() - t0);
    deps.observe?.({ tenant: caller.tenant, seq: outcome.appended.seq, leaf: outcome.appended.leaf, bytes: outcome.appended.bytes });
    if (!receipt) return c.json({ effect: outcome.effect, seq: outcome.appended.seq, chain: outcome.chain, finalPayload: outcome.finalPayload, wait: 'durable', durable: durableAnswer(outcome.appended) });
    return c.json({ effect: outcome.effect, seq: outcome.appended.seq, chain: outcome.chain, finalPayload: outcome.finalPayload, receipt });
  });

  registerRestReadRoutes(app, rc);
}

/**
 * The read side for auditors: the checkpoint, an entry with its receipt, proofs, payloads. Audit
 * role, the caller's own tenant. Also served by the gateway's listener (http/audit-app.ts).
 */
export function registerRestReadRoutes(app: Hono<Env>, rc: Pick<RestContext, 'deps' | 'withRole'>): void {
  const { deps, withRole } = rc;

  app.get('/v1/checkpoint', withRole('audit'), async (c) => {
    const log = await deps.logs(c.get('caller').tenant);
    const cp = await log.latestCheckpoint();
    // How far the witnesses are behind (issue 35): absent without witnessing, null before any cosignature.
    const w = log.witnessed && ((await log.witnessed()) ?? null);
    const witnessed = w === undefined ? {} : { witnessed: w && { size: w.size, checkpointSize: cp?.size ?? 0, behind: Math.max(0, (cp?.size ?? 0) - w.size), time: new Date(w.ts * 1000).toISOString(), witnesses: w.witnesses } };
    // The newest RFC 3161 stamp (the console's "trusted timestamp" line): absent when time-stamping is off, null before the first.
    const t = deps.timestamps && (deps.timestamps.newest(log.origin) ?? null);
    const timestamped = t === undefined ? {} : { timestamped: t && { size: t.size, checkpointSize: cp?.size ?? 0, behind: Math.max(0, (cp?.size ?? 0) - t.size), tsa: t.tsa, genTime: t.genTime } };
    if (!cp) return c.json({ origin: log.origin, size: 0, root: null, checkpoint: null, ...witnessed, ...timestamped });
    return c.json({ origin: log.origin, size: cp.size, root: toHex(cp.root), checkpoint: cp.note, ...witnessed, ...timestamped });
  });

  app.get('/v1/entries/:seq', withRole('audit'), async (c) => {
    const seq = intParam(c.req.param('seq'), 'seq')!;
    const log = await deps.logs(c.get('caller').tenant);
    const bytes = await log.entry(seq);
    if (!bytes) throw new VouchError('ERR_NOT_FOUND', `no entry ${seq}`);
    const cp = await log.latestCheckpoint();
    // Durable but not yet covered by a signed checkpoint (wait "durable"): no receipt yet, `pending`.
    if (!cp || cp.size <= seq) return c.json({ seq, entry: JSON.parse(utf8.decode(bytes)), receipt: null, pending: true });
    const proof = await log.inclusionProof(seq, cp.size);
    // The earliest stamped tree holding this entry: the earliest trusted time it is proven to exist by.
    const t = deps.timestamps?.covering(log.origin, seq);
    const timestamp = t && buildTimestampEvidence(t.note, await log.inclusionProof(seq, t.size), t.token);
    const receipt = buildReceipt({ bytes, leaf: hashLeaf(bytes), seq, proof, checkpoint: cp.note, timestamp });
    return c.json({ seq, entry: JSON.parse(utf8.decode(bytes)), receipt });
  });

  // The same proof as a COSE receipt (RFC 9942), signed where the keys are: once per checkpoint
  // and key (coseSignatureCache), over a root that key already signed in the checkpoint note.
  const coseSign = coseSignatureCache();
  app.get('/v1/entries/:seq/receipt.cose', withRole('audit'), async (c) => {
    const seq = intParam(c.req.param('seq'), 'seq')!;
    const alg = c.req.query('alg') ?? 'ML-DSA-65';
    if (alg !== 'ML-DSA-65' && alg !== 'Ed25519') throw new InputError('ERR_INPUT', 'alg is ML-DSA-65 (default) or Ed25519', [{ path: '/alg', message: 'unknown algorithm' }]);
    const tenant = c.get('caller').tenant;
    const cose = deps.coseSigners?.(tenant);
    const signer = cose?.signers.find((s) => s.alg === alg);
    if (!cose || !signer) throw new VouchError('ERR_NOT_FOUND', `this service signs no COSE receipts with ${alg}: use GET /v1/entries/${seq} (the JSON receipt)`);
    const log = await deps.logs(tenant);
    const bytes = await log.entry(seq);
    if (!bytes) throw new VouchError('ERR_NOT_FOUND', `no entry ${seq}`);
    const cp = await log.latestCheckpoint();
    if (!cp || cp.size <= seq) throw new VouchError('ERR_NOT_FOUND', `entry ${seq} is durable but no signed checkpoint covers it yet (newest: size ${cp?.size ?? 0}): ask again in a moment`);
    const proof = await log.inclusionProof(seq, cp.size);
    const receipt = await buildCoseReceipt({ entry: bytes, seq, proof, checkpoint: cp.note, keyNames: cose.keyNames }, signer, await coseSign(cp.note, cose.keyNames, signer));
    return c.body(Uint8Array.from(receipt), 200, { 'content-type': COSE_MEDIA_TYPE });
  });

  app.get('/v1/proofs/inclusion', withRole('audit'), async (c) => {
    const log = await deps.logs(c.get('caller').tenant);
    const seq = intParam(c.req.query('seq'), 'seq')!;
    const cp = await log.latestCheckpoint();
    const size = intParam(c.req.query('size'), 'size', false) ?? cp?.size ?? 0;
    if (seq >= size) throw new VouchError('ERR_NOT_FOUND', `entry ${seq} is not in a tree of size ${size}`);
    const at = await log.checkpointAt(size);
    if (!at) throw new VouchError('ERR_NOT_FOUND', `no checkpoint was signed at size ${size}`);
    return c.json({ seq, size, proof: (await log.inclusionProof(seq, size)).map(toHex), checkpoint: at.note });
  });

  app.get('/v1/proofs/consistency', withRole('audit'), async (c) => {
    const log = await deps.logs(c.get('caller').tenant);
    const from = intParam(c.req.query('from'), 'from')!;
    const cp = await log.latestCheckpoint();
    const to = intParam(c.req.query('to'), 'to', false) ?? cp?.size ?? 0;
    if (from < 1 || from > to) throw new InputError('ERR_INPUT', 'need 1 <= from <= to', [{ path: '/from', message: 'out of range' }]);
    const at = await log.checkpointAt(to);
    if (!at) throw new VouchError('ERR_NOT_FOUND', `no checkpoint was signed at size ${to}`);
    return c.json({ from, to, proof: (await log.consistencyProof(from, to)).map(toHex), checkpoint: at.note });
  });

  app.get('/v1/payloads/:digest', withRole('audit'), async (c) => {
    const digest = parseDigest(c.req.param('digest'), '/digest');
    const log = await deps.logs(c.get('caller').tenant);
    const bytes = await log.payload(digest);
    if (!bytes) throw new VouchError('ERR_NOT_FOUND', `no payload ${digest} (never stored, or erased)`);
    return c.json({ digest, payload: JSON.parse(utf8.decode(bytes)) });
  });
}
