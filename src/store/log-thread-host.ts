// The log writer thread's side (NODE-ONLY; see log-thread.ts). It owns each tenant's Appender and
// SQLite write connection; ML-DSA-65 signing runs in a thread of its own below this one, so
// entries keep being encoded and batches committed while a checkpoint is being signed.
import { createHash } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { createEd25519Verifier, createMldsaVerifier, type Signer } from '../crypto/index.js';
import { createNodeEd25519Signer, createSignerFromSeed } from '../crypto/node.js';
import { Appender, auditLeaves, noteSignerFor, noteVerifierFor, type Appended } from '../log/index.js';
import { toWireError, type HostMessage, type MainMessage, type WireError } from './log-thread.js';
import type { LogStore } from './port.js';
import { openSqliteStore } from './sqlite.js';

const port = parentPort!;
const data = workerData as { keyName: string; mldsaSeed: Uint8Array; ed25519Seed?: Uint8Array; maxBatch?: number; minIntervalMs: number; auditPage?: number };
const mldsa = await createSignerFromSeed(data.mldsaSeed, { thread: true });
const signers: Signer[] = [mldsa];
if (data.ed25519Seed) signers.push(createNodeEd25519Signer(data.ed25519Seed));
data.mldsaSeed.fill(0);
data.ed25519Seed?.fill(0);
const noteSigners = signers.map((s) => noteSignerFor(data.keyName, s));
// The log's own keys, to check the newest stored checkpoint before signing anything (open-check.ts).
const noteVerifiers = signers.map((s) => noteVerifierFor(data.keyName, s.alg === 'Ed25519' ? createEd25519Verifier(s.publicKey) : createMldsaVerifier(s.publicKey)));
let closing = false;

const logs = new Map<string, { appender: Appender; store: LogStore } | { error: WireError }>();

// Answers go out once per turn of the loop: the entries of one batch settle together, so they
// travel in one message, with their checkpoint note once.
let done: { notes: string[]; ok: Extract<HostMessage, { t: 'done' }>['ok']; failed: [number, WireError][] } | undefined;
const noteIndex = new Map<string, number>();
function answer(): NonNullable<typeof done> {
  if (!done) {
    done = { notes: [], ok: [], failed: [] };
    setImmediate(() => {
      const m: HostMessage = { t: 'done', ...done! };
      done = undefined;
      noteIndex.clear();
      send(m);
    });
  }
  return done;
}
function ok(id: number, a: Appended): void {
  const d = answer();
  let n = noteIndex.get(a.checkpoint);
  if (n === undefined) noteIndex.set(a.checkpoint, (n = d.notes.push(a.checkpoint) - 1));
  d.ok.push([id, a.seq, a.bytes, a.leaf, a.size, a.proof, n]);
}
function failed(id: number, e: unknown): void {
  answer().failed.push([id, toWireError(e)]);
}
function send(m: HostMessage): void {
  port.postMessage(m);
}

function open(tenant: string, path: string, origin: string): void {
  let store: LogStore | undefined;
  try {
    store = openSqliteStore(path);
    const appender = Appender.open({
      origin,
      storage: store,
      signers: noteSigners,
      verifiers: noteVerifiers,
      maxBatch: data.maxBatch,
      minIntervalMs: data.minIntervalMs,
      monotonic: () => performance.now(),
      onBatch: (stats) => send({ t: 'batch', tenant, stats }),
    });
    logs.set(tenant, { appender, store });
    send({ t: 'opened', tenant });
    audit(tenant, appender, store);
  } catch (e) {
    store?.close();
    const error = toWireError(e);
    logs.set(tenant, { error });
    send({ t: 'openFailed', tenant, error });
  }
}

/** Background audit of the stored leaves (leaf-audit.ts): between appends, a page at a time; a mismatch halts signing. */
function audit(tenant: string, appender: Appender, store: LogStore): void {
  void auditLeaves(store, appender.opened, {
    page: data.auditPage,
    hashLeaf: nativeLeafHash,
    stopped: () => closing,
    onMismatch: (e) => appender.halt(e),
    onProgress: (p) => send({ t: 'audit', tenant, checked: p.checked, total: p.total, complete: p.complete, error: p.error && toWireError(p.error) }),
  });
}

/** RFC 9162 leaf hash by node:crypto: the audit rehashes every stored entry, several times faster than pure JS. */
function nativeLeafHash(bytes: Uint8Array): Uint8Array {
  const d = createHash('sha256').update(LEAF_PREFIX).update(bytes).digest();
  return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
}
const LEAF_PREFIX = Uint8Array.of(0);

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

port.on('message', (m: MainMessage) => {
  switch (m.t) {
    case 'open':
      return open(m.tenant, m.path, m.origin);
    case 'append': {
      const l = logs.get(m.tenant);
      if (!l) return failed(m.id, new Error(`log of tenant ${m.tenant} is not open`));
      if ('error' in l) return void answer().failed.push([m.id, l.error]);
      l.appender.append(m.body, m.attachments).then(
        (a) => ok(m.id, a),
        (e) => failed(m.id, e),
      );
      return;
    }
    case 'checkpoint': {
      const l = logs.get(m.tenant);
      const appender = l && 'appender' in l ? l.appender : undefined;
      if (!appender) return send({ t: 'signFailed', id: m.id, error: l && 'error' in l ? l.error : { code: 'ERR_STORE', message: `log of tenant ${m.tenant} is not open` } });
      appender.checkpointNow().then(
        (c) => send({ t: 'signed', id: m.id, size: c.size, note: c.note }),
        (e) => send({ t: 'signFailed', id: m.id, error: toWireError(e) }),
      );
      return;
    }
    case 'close':
      void close();
  }
});
send({ t: 'ready' });
