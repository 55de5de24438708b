// Bench helper: a data directory whose default tenant log holds N realistic-size decision entries
// (about 1.4 kB each), written fast: entry bytes from one canonical template (seq, prev and trace
// spliced in; still canonical), SQLite inserts through the real store's appendBatch, and a real
// signed checkpoint per 50,000 entries (by every key the data directory has). Cached under the OS
// temp dir by N and GENERATOR (bump it when the output changes: a stale cache is not reused); not timed.
// `payloads: 'each'` gives every decision a payload of its own (what `log verify`'s payload check
// holds state for), and `erasedBelow` has retention erase the first ones, recorded at the end.
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { digestBytes, toHex, utf8, type Digest } from '../src/canonical/index.js';
import { createEd25519Signer, createMldsa44Signer, type Signer } from '../src/crypto/index.js';
import { createSignerFromSeed } from '../src/crypto/node.js';
import { appendLeaf, emptyRange, encodeEntry, GENESIS_PREV, nextHeads, noteSignerFor, rangeRoot, signCheckpoint, type CompactRange, type EntryBody, type Heads, type TreeNode } from '../src/log/index.js';
import { erasureEntryBody, MAX_ERASURE_DIGESTS } from '../src/entries/index.js';
import { initDataDir, loadKeys, logPath, openSqliteStore, DEFAULT_KEY_NAME } from '../src/store/node.js';

const CHUNK = 50_000;
/** The cache key's version: 3 signs with ML-DSA-44 too (a generation's third key) and writes `heads` (issue 35) as the appender does. */
const GENERATOR = 3;
/** What every entry commits to (log/heads.ts): the one policy entry, seq 0. */
const HEADS: Heads = { policy: [1, 0] };
const SEQ = 987654321987;
const PREV = 'ab'.repeat(32);
const TRACE = 'TRACEPLACEHOLDER';
/** Stands in for the input digest in the template when each decision names its own payload. */
const INPUT_DIGEST = `sha256:${'7'.repeat(64)}`;

const digest = (c: string) => `sha256:${c.repeat(64)}`;
/** The one payload every entry names (stored once, so `log verify` finds it). */
const INPUT = utf8.encode('{"arguments":{"path":"/srv/reports/q1/file-1.csv"},"name":"read_file"}');

/** Entry 0: the policy entry that activates the (chain, policy set) every decision names. */
const POLICY: EntryBody = { type: 'policy', time: '2026-11-30T12:00:00.000Z', chain: digest('c'), policySet: digest('d'), engines: { cedar: '4.8.2', vouch: '0.1.0' }, action: 'activate' };

function body(input: string = digestBytes(INPUT)): EntryBody {
  return {
    type: 'decision', time: '2026-11-30T12:00:00.000Z', tenant: 'default', principal: 'user-3', roles: ['enforce'], event: 'tools/call', phase: 'request',
    direction: 'sending', session: 'sess-2', server: 'filesystem', trace: TRACE,
    policy: { chain: digest('c'), policySet: digest('d'), engines: { cedar: '4.8.2', vouch: '0.1.0' } },
    input: { digest: input }, intent: null,
    decision: {
      effect: 'allow',
      results: Array.from({ length: 3 }, (_, i) => ({ interceptor: ['pii', 'authz', 'secrets'][i], type: i === 1 ? 'validation' : 'mutation', valid: true, mutated: i === 0, durationMs: 0.4, info: { redactions: i === 0 ? 1 : 0, rules: ['email', 'phone', 'card', 'aws-key', 'jwt'] }, messages: i === 1 ? [{ severity: 'info', path: 'arguments.path', message: 'permitted by policy0 (tools/call on Tool::"read_file" for principal User::"user-3")' }] : [] })),
    },
    state: { 'rate-limit': { window: 60, used: 12, limit: 600 }, taint: { session: 'sess-2', sources: ['filesystem'] } },
  } as EntryBody;
}

/** The template's text split at the placeholders: [text, 'seq' | 'prev' | 'trace' | 'input', text, ...]. */
function template(origin: string, each: boolean): string[] {
  const text = utf8.decode(encodeEntry(origin, SEQ, PREV, body(each ? INPUT_DIGEST : undefined), HEADS));
  const mark: Record<string, string> = { [String(SEQ)]: '\u0000seq', [PREV]: '\u0000prev', [TRACE]: '\u0000trace', [INPUT_DIGEST]: '\u0000input' };
  return text.split(new RegExp(`(${SEQ}|${PREV}|${TRACE}|${INPUT_DIGEST})`)).map((p) => mark[p] ?? p);
}

/** Entry seq's own payload (payloads: 'each'): distinct bytes, so a distinct digest. */
const inputOf = (seq: number): Uint8Array => utf8.encode(`{"arguments":{"path":"/srv/reports/q1/file-${seq}.csv"},"name":"read_file"}`);
const sha256Digest = (bytes: Uint8Array): Digest => `sha256:${createHash('sha256').update(bytes).digest('hex')}` as Digest;

export interface StartupLogOptions {
  /** 'one' (default): every decision names the same stored payload; 'each': a payload of its own, stored. */
  payloads?: 'one' | 'each';
  /** With 'each': decisions below this seq had their payloads erased by retention (erasure entries appended after the decisions, before = this). */
  erasedBelow?: number;
}

const leafHash = (bytes: Uint8Array): Uint8Array => {
  const d = createHash('sha256').update(Uint8Array.of(0)).update(bytes).digest();
  return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
};

/** The cached data directory holding `n` entries (built on first use). */
export async function startupLog(n: number, log: (line: string) => void = () => undefined, opts: StartupLogOptions = {}): Promise<string> {
  const each = opts.payloads === 'each';
  const erasedBelow = each ? Math.min(n, opts.erasedBelow ?? 0) : 0;
  const root = join(tmpdir(), 'vouch-bench-startup-cache', `v${GENERATOR}-n${n}${each ? `-each${erasedBelow ? `-erased${erasedBelow}` : ''}` : ''}`);
  const data = join(root, 'data');
  if (existsSync(join(root, 'complete'))) return data;
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  initDataDir(data);
  const keys = loadKeys(data);
  const signers: Signer[] = [await createSignerFromSeed(keys.mldsaSeed, { thread: false }), createEd25519Signer(keys.ed25519Seed!), ...(keys.mldsa44Seed ? [createMldsa44Signer(keys.mldsa44Seed)] : [])];
  const noteSigners = signers.map((s) => noteSignerFor(DEFAULT_KEY_NAME, s));
  const origin = `${DEFAULT_KEY_NAME}/default`;
  const store = openSqliteStore(logPath(data, 'default'));
  store.setMeta('origin', origin);
  store.putPayload(digestBytes(INPUT), INPUT);
  const parts = template(origin, each);
  const t0 = performance.now();
  let range: CompactRange = emptyRange();
  let prev = GENESIS_PREV;
  try {
    for (let from = 0; from < n; from += CHUNK) {
      const entries: { seq: number; bytes: Uint8Array; leaf: Uint8Array }[] = [];
      const nodes: TreeNode[] = [];
      const payloads: { digest: Digest; bytes: Uint8Array }[] = [];
      /** One entry onto the chunk: its leaf, the tree nodes it completes, the next entry's prev. */
      const append = (seq: number, bytes: Uint8Array) => {
        const leaf = leafHash(bytes);
        const step = appendLeaf(range, leaf);
        entries.push({ seq, bytes, leaf });
        nodes.push(...step.created);
        range = step.range;
        prev = toHex(leaf);
      };
      for (let seq = from; seq < Math.min(n, from + CHUNK); seq++) {
        const input = each && seq > 0 ? inputOf(seq) : undefined;
        const inputDigest = input && sha256Digest(input);
        if (input && seq >= erasedBelow) payloads.push({ digest: inputDigest!, bytes: input });
        let text = '';
        for (const p of parts) text += p === '\u0000seq' ? String(seq) : p === '\u0000prev' ? prev : p === '\u0000trace' ? `t-${seq.toString(36).padStart(14, '0')}` : p === '\u0000input' ? inputDigest! : p;
        const bytes = seq === 0 ? encodeEntry(origin, 0, GENESIS_PREV, POLICY, HEADS) : utf8.encode(text);
        append(seq, bytes);
      }
      // Retention's erasure entries, after the last decision: MAX_ERASURE_DIGESTS digests each, written as the appender would (heads counting them).
      if (erasedBelow > 1 && from + CHUNK >= n) {
        let heads: Heads = HEADS;
        for (let first = 1; first < erasedBelow; first += MAX_ERASURE_DIGESTS) {
          const digests = Array.from({ length: Math.min(MAX_ERASURE_DIGESTS, erasedBelow - first) }, (_, i) => sha256Digest(inputOf(first + i))).sort();
          const seq = range.size;
          heads = nextHeads(heads, 'erasure', seq);
          const bytes = encodeEntry(origin, seq, prev, erasureEntryBody({ time: '2026-11-30T12:00:00.000Z', digests, before: erasedBelow, reason: 'retention (bench)', by: 'operator:retention' }), heads);
          append(seq, bytes);
        }
      }
      const note = await signCheckpoint({ origin, size: range.size, root: rangeRoot(range), extensions: [] }, noteSigners);
      store.appendBatch({ entries, nodes, payloads, checkpoint: { size: range.size, root: rangeRoot(range), note } });
      log(`  startup log: ${range.size} of ${n} entries (${Math.round(performance.now() - t0)} ms)`);
    }
  } finally {
    store.close();
    for (const s of signers) await s.close?.();
  }
  writeFileSync(join(root, 'complete'), `${n}\n`);
  return data;
}
