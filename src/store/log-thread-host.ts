// The log writer thread's side (NODE-ONLY; see log-thread.ts). It owns each tenant's Appender and
// SQLite write connection; ML-DSA-65 signing runs in a thread of its own below this one, so
// entries keep being encoded and batches committed while a checkpoint is being signed.
import { createHash } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { createMldsa44Signer, createMldsa44Verifier, createMldsaVerifier, cryptoSelfTest, mldsaKeyFromSeed, type SignatureAlg, type Signer, type Verifier } from '../crypto/index.js';
import { createNodeEd25519Signer, createNodeEd25519Verifier, createSignerFromSeed, mldsaBackend, nodeVerifyEd25519, prestartSignWorker } from '../crypto/node.js';
import { Appender, auditLeaves, commitKeyOf, DEFAULT_AUDIT_DELAY_MS, noteSignerFor, noteVerifierFor, type Appended, type Durable, type NoteSigner, type NoteVerifier } from '../log/index.js';
import { StoreError } from '../errors.js';
import { toWireError, type Answers, type HostMessage, type LogThreadData, type MainMessage, type WireError } from './log-thread-protocol.js';
import type { LogStore } from './port.js';
import { openSqliteStore, type SqliteLogStore } from './sqlite.js';
import { openArchiveView } from './archive-read.js';
import { tenantArchiveDir } from './archive-write.js';

/** Ed25519 through node:crypto here (see the self-test below); ML-DSA through noble. */
function verifierOf(alg: SignatureAlg, publicKey: Uint8Array): Verifier {
  return alg === 'Ed25519' ? createNodeEd25519Verifier(publicKey) : alg === 'ML-DSA-44' ? createMldsa44Verifier(publicKey) : createMldsaVerifier(publicKey);
}

const port = parentPort!;
// Started early, this thread starts its signing thread at once too (noble only: native signing
// needs no thread). It warms up with a throwaway key while this one warms the policy engine, so
// the first checkpoint, which the first signed decision waits for, finds it warm.
const backend = safeBackend();
if (workerData === null && backend !== undefined && backend !== 'native') prestartSignWorker();
// Started early (prestarted: no workerData), this thread is idle until its keys come: it warms
// the policy engine's compiled code for the main thread meanwhile (policy/engine-warm-up.ts).
if (workerData === null) (await import('../policy/engine-warm-up.js')).warmPolicyEngine();
// The verifiers' known-answer self-test before any log is opened (crypto/self-test.ts). Started
// early, this thread runs it while the parent is still loading, and the open check then finds
// both verifiers warm. This thread checks the log's own Ed25519 lines with node:crypto (strict
// encodings as ed25519.ts; no JIT warm-up, which cost about 90 ms of start-up here), so that is
// the verifier tested.
cryptoSelfTest(undefined, { ed25519: nodeVerifyEd25519 });
// Started early (log-thread-start.ts prestartLogThread), the thread has loaded the modules above while
// its parent loaded its own; then its keys and options come as the first message.
const data: LogThreadData =
  (workerData as LogThreadData | null) ??
  (await new Promise<LogThreadData>((resolve) => {
    const first = (m: MainMessage) => {
      if (m.t !== 'init') return;
      port.off('message', first);
      resolve(m.data);
    };
    port.on('message', first);
  }));
// With the public key given, the signing thread loads while logs are opened and checked; the
// first checkpoint waits for it, and a key it derives otherwise fails every signature.
// The parent may leave the public key to this thread: derived here, while the parent loads the policy.
const mldsaPublicKey = data.mldsaPublicKey ?? derivePublicKey(data.mldsaSeed);
const mldsa = await createSignerFromSeed(data.mldsaSeed, { thread: true, publicKey: mldsaPublicKey });
// A signing thread that cannot start (it derives a key other than the one given, or its PQClean
// build does not load) will never sign: this thread ends with the reason, so every owed and later
// append fails at once and /healthz says why, instead of durable callers being answered until the
// coverage bound trips (nothing they were told is lost: each was committed).
mldsa.ready?.catch((e: unknown) => {
  setImmediate(() => {
    throw new Error(`the ML-DSA-65 signer did not start: ${(e as Error)?.message ?? String(e)}`);
  });
});
const signers: Signer[] = [mldsa];
if (data.ed25519Seed) signers.push(createNodeEd25519Signer(data.ed25519Seed));
if (data.mldsa44Seed) signers.push(createMldsa44Signer(data.mldsa44Seed));
// Tags each commit, and checks the tag of a tail a crash left unsigned (log/commit-tag.ts).
let commitKey = commitKeyOf(data.mldsaSeed);
data.mldsaSeed.fill(0);
data.ed25519Seed?.fill(0);
data.mldsa44Seed?.fill(0);
const noteSigners = signers.map((s) => noteSignerFor(data.keyName, s));
// The log's own keys, to check the newest stored checkpoint before signing anything (open-check.ts).
const noteVerifiers = signers.map((s) => noteVerifierFor(data.keyName, verifierOf(s.alg, s.publicKey)));
let closing = false;

/** A bad VOUCH_MLDSA is reported where the signer is made, not here. */
function safeBackend(): string | undefined {
  try {
    return mldsaBackend();
  } catch {
    return undefined;
  }
}

function derivePublicKey(seed: Uint8Array): Uint8Array {
  const { publicKey, secretKey } = mldsaKeyFromSeed(seed);
  secretKey.fill(0);
  return publicKey;
}

const logs = new Map<string, { appender: Appender; store: SqliteLogStore } | { error: WireError }>();

// Answers go out once per turn of the loop: the entries of one batch settle together, so they
// travel in one message, with their checkpoint note once.
let turn: Answers | undefined;
const noteIndex = new Map<string, number>();
function answers(): Answers {
  if (!turn) {
    turn = { durable: [], signed: [], notes: [], failed: [] };
    setImmediate(() => {
      const m: HostMessage = { t: 'answers', ...turn! };
      turn = undefined;
      noteIndex.clear();
      send(m);
    });
  }
  return turn;
}
function durable(id: number, d: Durable): void {
  answers().durable.push({ id, seq: d.seq, bytes: d.bytes, leaf: d.leaf });
}
/** `answeredDurable`: the durable answer carried the entry's bytes and leaf hash already. */
function signed(id: number, a: Appended, answeredDurable: boolean): void {
  const t = answers();
  let note = noteIndex.get(a.checkpoint);
  if (note === undefined) noteIndex.set(a.checkpoint, (note = t.notes.push(a.checkpoint) - 1));
  t.signed.push(answeredDurable ? { id, seq: a.seq, size: a.size, proof: a.proof, note } : { id, seq: a.seq, bytes: a.bytes, leaf: a.leaf, size: a.size, proof: a.proof, note });
}
function failed(id: number, e: unknown): void {
  answers().failed.push({ id, error: toWireError(e) });
}
function send(m: HostMessage): void {
  port.postMessage(m);
}

// Key history (issue 18): the signer set in use (a rotation replaces it for every later open) and
// each log's signing name and keys with the sizes they sign.
let current: Signer[] = signers;
function keysOf(m: Extract<MainMessage, { t: 'open' }>): { signers: NoteSigner[]; verifiers: NoteVerifier[] } {
  if (!m.keys || !m.keyName) return { signers: noteSigners, verifiers: noteVerifiers };
  const verifiers = m.keys.map((k) => ({ ...noteVerifierFor(k.name, verifierOf(k.alg, k.publicKey)), ...(k.window ? { window: k.window } : {}) }));
  return { signers: current.map((s) => noteSignerFor(m.keyName!, s)), verifiers };
}

async function rotate(m: Extract<MainMessage, { t: 'rotate' }>): Promise<void> {
  const l = logs.get(m.tenant);
  if (!l || 'error' in l) return failed(m.id, l && 'error' in l ? new Error(l.error.message) : new Error(`log of tenant ${m.tenant} is not open`));
  try {
    const next: Signer[] = [await createSignerFromSeed(m.keys.mldsaSeed, { thread: true })];
    if (m.keys.ed25519Seed) next.push(createNodeEd25519Signer(m.keys.ed25519Seed));
    if (m.keys.mldsa44Seed) next.push(createMldsa44Signer(m.keys.mldsa44Seed));
    const nextKey = commitKeyOf(m.keys.mldsaSeed);
    const a = await l.appender.rotate(m.body, next.map((s) => noteSignerFor(m.keys.keyName, s)), nextKey);
    current = next;
    commitKey = nextKey;
    signed(m.id, a, false);
  } catch (e) {
    failed(m.id, e);
  }
}

function open(tenant: string, path: string, origin: string, keys: ReturnType<typeof keysOf> = { signers: noteSigners, verifiers: noteVerifiers }): void {
  let store: SqliteLogStore | undefined;
  try {
    store = openSqliteStore(path);
    const appender = Appender.open({
      origin,
      storage: store,
      signers: keys.signers,
      verifiers: keys.verifiers,
      commitKey,
      maxBatch: data.maxBatch,
      ...data.pacing,
      monotonic: () => performance.now(),
      onBatch: (stats) => send({ t: 'batch', tenant, stats }),
    });
    logs.set(tenant, { appender, store });
    send({ t: 'opened', tenant });
    audit(tenant, appender, store, origin);
  } catch (e) {
    store?.close();
    const error = toWireError(e);
    logs.set(tenant, { error });
    send({ t: 'openFailed', tenant, error });
  }
}

/**
 * Background audit of the stored leaves (leaf-audit.ts): between appends, a page at a time; a
 * mismatch halts signing. It starts a moment after the log opens: on two cores, an audit running
 * from the first millisecond took CPU from start-up and delayed the first decision by about half
 * a second (bench/startup.bench.ts). Its progress shows 0 of the signed size meanwhile.
 */
function audit(tenant: string, appender: Appender, store: SqliteLogStore, origin: string): void {
  send({ t: 'audit', tenant, checked: 0, total: appender.opened.size, complete: false });
  const timer = setTimeout(() => runAudit(tenant, appender, store, origin), data.auditDelayMs ?? DEFAULT_AUDIT_DELAY_MS);
  timer.unref?.();
}

function runAudit(tenant: string, appender: Appender, store: SqliteLogStore, origin: string): void {
  // A log closed (closeLog) before, or while, its audit runs: that audit stops; a reopen audits anew.
  const stopped = () => closing || (logs.get(tenant) as { appender?: Appender } | undefined)?.appender !== appender;
  if (stopped()) return;
  // Sealed history is read from the tile archive where it has it (the copy clients fetch), so a
  // changed or missing archived tile stops signing like a changed row; an archive whose checkpoint
  // is not this log's is that mismatch too (a crash never leaves one: checkpoint renamed last).
  let source: LogStore | ReturnType<typeof openArchiveView>['storage'] = store;
  let archiveFindings: { message: string; database?: true }[] = [];
  let readFrom = '';
  if (data.archiveRoot) {
    // Its checkpoint must be a note this log stored (keys are not re-checked: the open check did).
    // The rows the log still holds are compared with the archive as they are read: both copies are audited.
    const dir = tenantArchiveDir(data.archiveRoot, tenant);
    const view = openArchiveView(dir, store, { origin, rowsFrom: store.prunedBelow() });
    source = view.storage;
    archiveFindings = view.findings;
    if (view.sealed > 0) readFrom = ` (entries 0..${view.sealed - 1} and their hash tiles were read from the archive ${dir}: \`vouch log verify\` names which copy differs)`;
  }
  const archiveError = (why: string) => new StoreError('ERR_ARCHIVE_MISMATCH', `${why} (archive: ${archiveFindings.map((f) => f.message).join('; ')})`);
  void auditLeaves(source, appender.opened, {
    page: data.auditPage,
    hashLeaf: nativeLeafHash,
    stopped,
    // One error for the progress report (/healthz) and the halt: which copy was read, said in both.
    // A row that differs from the archive is the store's inconsistency (503, as without an archive); a bad archive file is the archive's.
    explain: (e) => (archiveFindings.some((f) => !f.database) ? archiveError(e.message) : new StoreError(e.code, `${e.message}${readFrom}${archiveFindings.length ? ` (${archiveFindings.map((f) => f.message).join('; ')})` : ''}`)),
    onMismatch: (e) => appender.halt(e),
    onProgress: (p) => send({ t: 'audit', tenant, checked: p.checked, total: p.total, complete: p.complete, error: p.error && toWireError(p.error) }),
  }).then((p) => {
    if (!p.complete || archiveFindings.length === 0) return;
    const error = archiveError('refusing to sign: background audit: the archive is not this log\'s');
    appender.halt(error);
    send({ t: 'audit', tenant, checked: p.checked, total: p.total, complete: true, error: toWireError(error) });
  });
}

/** RFC 9162 leaf hash by node:crypto: the audit rehashes every stored entry, several times faster than pure JS. */
function nativeLeafHash(bytes: Uint8Array): Uint8Array {
  const d = createHash('sha256').update(LEAF_PREFIX).update(bytes).digest();
  return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
}
const LEAF_PREFIX = Uint8Array.of(0);

/**
 * Close one tenant's log: off the map first (its audit stops), then the Appender finishes what was
 * appended before this message (committed and signed), then its connection closes. The answers of
 * those appends go out before `logClosed`.
 */
async function closeLog(tenant: string, id: number): Promise<void> {
  const l = logs.get(tenant);
  logs.delete(tenant);
  let error: WireError | undefined;
  try {
    if (l && 'appender' in l) {
      await l.appender.close();
      l.store.close();
    }
  } catch (e) {
    error = toWireError(e);
  }
  await new Promise((r) => setImmediate(r));
  send({ t: 'logClosed', id, ...(error ? { error } : {}) });
}

async function close(): Promise<void> {
  closing = true;
  for (const l of logs.values()) if ('appender' in l) await l.appender.close();
  for (const l of logs.values()) if ('store' in l) l.store.close();
  logs.clear();
  await mldsa.close?.();
  // Answers still queued for this turn go out before `closed`.
  await new Promise((r) => setImmediate(r));
  send({ t: 'closed' });
}

port.on('message', (m: MainMessage) => handle(m));

function handle(m: MainMessage): void {
  switch (m.t) {
    case 'appends':
      for (const a of m.appends) handle(a);
      return;
    case 'open':
      return open(m.tenant, m.path, m.origin, keysOf(m));
    case 'rotate':
      return void rotate(m);
    case 'append': {
      const l = logs.get(m.tenant);
      if (!l) return failed(m.id, new Error(`log of tenant ${m.tenant} is not open`));
      if ('error' in l) return void answers().failed.push({ id: m.id, error: l.error });
      const { id } = m;
      // A caller that waits only for the commit lets the writer sign less often (pacing.ts).
      const follow = !(m.durable && m.follow === false);
      l.appender.appendDurable(m.body, m.attachments, follow ? { signed: !m.durable } : { follow: false }).then(
        (d) => {
          if (m.durable) durable(id, d);
          if (!follow) return; // its durable answer was the last: no proof, no signed answer
          d.signed.then(
            (a) => signed(id, a, m.durable),
            (e) => failed(id, e),
          );
        },
        (e) => failed(id, e),
      );
      return;
    }
    case 'checkpoint': {
      const l = logs.get(m.tenant);
      const appender = l && 'appender' in l ? l.appender : undefined;
      if (!appender) return send({ t: 'checkpointFailed', id: m.id, error: l && 'error' in l ? l.error : { code: 'ERR_STORE', message: `log of tenant ${m.tenant} is not open` } });
      appender.checkpointNow().then(
        (c) => send({ t: 'checkpointed', id: m.id, size: c.size, note: c.note }),
        (e) => send({ t: 'checkpointFailed', id: m.id, error: toWireError(e) }),
      );
      return;
    }
    case 'closeLog':
      return void closeLog(m.tenant, m.id);
    case 'init':
      return; // taken before this handler exists
    case 'close':
      void close();
  }
}
send({ t: 'ready', mldsaPublicKey: mldsa.publicKey, mldsa44PublicKey: signers.find((s) => s.alg === 'ML-DSA-44')?.publicKey });
