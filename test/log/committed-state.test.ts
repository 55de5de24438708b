// Issue 35: the state a log commits to (heads), read without trusting an index. A log written before
// heads existed (fixtures/entries/golden-v1.jsonl, real bytes of an older version) is counted by a
// scan and its next entry carries heads; an index that hides or adds a row is refused; a decision
// made under a policy that is no longer in force is refused by the appender, and `log verify`'s
// checks name any decision under a replaced policy and any entry whose heads are wrong.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { utf8 } from '../../src/canonical/index.js';
import {
  ActivationTracker, Appender, appendLeaf, auditLeaves, committedHeads, committedNewest, committedRows, decodeEntry, emptyRange, encodeEntry, hashLeaf, HeadsCheck,
  rangeRoot, signCheckpoint, type CompactRange, type Entry,
} from '../../src/log/index.js';
import { openSqliteStore } from '../../src/store/node.js';
import type { LogStore } from '../../src/store/port.js';
import { testKeys } from '../helpers/keys.js';
import { hideFromIndex } from '../security/_file-attacker.js';

const ORIGIN = 'golden.vouch/acme';
const T = '2026-12-05T12:00:00Z';
const keys = testKeys('golden.vouch/acme');
const A = { chain: `sha256:${'a'.repeat(64)}`, policySet: `sha256:${'b'.repeat(64)}` };
const B = { chain: `sha256:${'c'.repeat(64)}`, policySet: `sha256:${'d'.repeat(64)}` };

/** A store holding `lines` (exact entry bytes) with their nodes and one checkpoint signed over all of them. */
async function storeOf(lines: Uint8Array[]): Promise<{ store: LogStore; path: string }> {
  const path = join(mkdtempSync(join(tmpdir(), 'vouch-committed-')), 'log.db');
  const store = openSqliteStore(path);
  let range: CompactRange = emptyRange();
  const entries = [];
  const nodes = [];
  for (const [seq, bytes] of lines.entries()) {
    const leaf = hashLeaf(bytes);
    const step = appendLeaf(range, leaf);
    entries.push({ seq, bytes, leaf });
    nodes.push(...step.created);
    range = step.range;
  }
  const root = rangeRoot(range);
  const note = await signCheckpoint({ origin: ORIGIN, size: lines.length, root, extensions: [] }, keys.signers);
  store.appendBatch({ entries, nodes, payloads: [], checkpoint: { size: lines.length, root, note } });
  return { store, path };
}

const legacy = readFileSync(new URL('../../fixtures/entries/golden-v1.jsonl', import.meta.url), 'utf8').trim().split('\n').map((l) => utf8.encode(l));
const types = legacy.map((b) => decodeEntry(b).type);
const seqsOf = (t: string) => types.flatMap((x, i) => (x === t ? [i] : []));

describe('committed state of a log written before heads existed', () => {
  it('is counted by a scan; the next entry the appender writes carries it', async () => {
    const { store } = await storeOf(legacy);
    const h = committedHeads(store);
    expect(h.pin).toEqual([seqsOf('pin').length, seqsOf('pin').at(-1)]);
    expect(h.policy).toEqual([seqsOf('policy').length, seqsOf('policy').at(-1)]);
    expect(committedNewest(store, 'policy')!.entry.seq).toBe(seqsOf('policy').at(-1));
    const appender = Appender.open({ origin: ORIGIN, storage: store, signers: keys.signers, verifiers: keys.verifiers });
    const a = await appender.append({ type: 'pin', time: T, server: 'files', tool: 'x', action: 'first-seen', digest: `sha256:${'e'.repeat(64)}` });
    const e = decodeEntry(a.bytes);
    expect(e.heads!.pin).toEqual([seqsOf('pin').length + 1, a.seq]);
    expect(e.heads!.policy).toEqual(h.policy);
    await appender.close();
    // From now on the newest entry says it, with no scan.
    expect(committedHeads(store)).toEqual(e.heads);
  });

  it('an index hiding a pin row of a legacy log is refused', async () => {
    const { store, path } = await storeOf(legacy);
    store.close();
    hideFromIndex(path, 'entries_pin', [seqsOf('pin')[0]]);
    const again = openSqliteStore(path);
    expect(() => committedRows(again, 'pin', again.pinEntries!())).toThrow(/pin entries read through entries_pin: 1 rows ending at .*commits to 2/);
    // Without the index (a scan) the same rows are found.
    expect(committedRows(again, 'pin', undefined).map((r) => r.seq)).toEqual(seqsOf('pin'));
  });
});

describe('the policy fence: decisions only under the policy in force', () => {
  const decision = (p: typeof A) => ({ type: 'decision' as const, time: T, policy: { ...p, engines: {} } });

  it('refuses a decision under a replaced policy (ERR_POLICY_CHANGED), writes nothing for it, and accepts the one in force', async () => {
    const store = openSqliteStore(join(mkdtempSync(join(tmpdir(), 'vouch-fence-')), 'log.db'));
    const appender = Appender.open({ origin: ORIGIN, storage: store, signers: keys.signers, verifiers: keys.verifiers });
    await appender.append({ type: 'policy', time: T, ...A, engines: {}, action: 'activate' });
    await appender.append(decision(A));
    await appender.append({ type: 'policy', time: T, ...B, engines: {}, action: 'activate' });
    const size = appender.size;
    await expect(appender.append(decision(A))).rejects.toMatchObject({ code: 'ERR_POLICY_CHANGED' });
    expect(appender.size).toBe(size);
    await appender.append(decision(B));
    await appender.close();
    // The fence survives a restart: it is read from the entry the log commits to.
    const reopened = Appender.open({ origin: ORIGIN, storage: store, signers: keys.signers, verifiers: keys.verifiers });
    await expect(reopened.append(decision(A))).rejects.toMatchObject({ code: 'ERR_POLICY_CHANGED' });
    await reopened.append(decision(B));
    await reopened.close();
  });

  it('log verify: a decision under an earlier, replaced activation is a finding', () => {
    const t = new ActivationTracker();
    const e = (seq: number, body: Record<string, unknown>) => ({ v: 1, log: ORIGIN, seq, prev: '0'.repeat(64), time: T, ...body }) as unknown as Entry;
    expect(t.visit(e(0, { type: 'policy', ...A }))).toBeUndefined();
    expect(t.visit(e(1, decision(A)))).toBeUndefined();
    expect(t.visit(e(2, { type: 'policy', ...B }))).toBeUndefined();
    expect(t.visit(e(3, decision(A)))).toMatchObject({ kind: 'activation', seq: 3, message: expect.stringContaining('a newer one replaced') });
    expect(t.visit(e(4, decision(B)))).toBeUndefined();
  });
});

describe('heads are checked wherever entries are read', () => {
  /** A log whose entry 2 claims one policy entry fewer than there are (what a wrong writer would sign). */
  async function wrongHeads(): Promise<{ store: LogStore; lines: Uint8Array[] }> {
    const lines: Uint8Array[] = [];
    let prev = '0'.repeat(64);
    const bodies = [
      { body: { type: 'policy' as const, time: T, ...A, engines: {}, action: 'activate' }, heads: { policy: [1, 0] as [number, number] } },
      { body: { type: 'policy' as const, time: T, ...B, engines: {}, action: 'activate' }, heads: { policy: [2, 1] as [number, number] } },
      { body: { type: 'decision' as const, time: T, policy: { ...A, engines: {} } }, heads: { policy: [1, 0] as [number, number] } },
    ];
    for (const [seq, { body, heads }] of bodies.entries()) {
      const bytes = encodeEntry(ORIGIN, seq, prev, body, heads);
      lines.push(bytes);
      prev = Buffer.from(hashLeaf(bytes)).toString('hex');
    }
    return { ...(await storeOf(lines)), lines };
  }

  it('log verify and bundles (HeadsCheck) name the entry', async () => {
    const { lines } = await wrongHeads();
    const check = new HeadsCheck();
    const findings = lines.map((b) => check.visit(decodeEntry(b))).filter(Boolean);
    expect(findings).toEqual([expect.objectContaining({ kind: 'heads', seq: 2 })]);
  });

  it('the background audit stops signing', async () => {
    const { store } = await wrongHeads();
    let mismatch: Error | undefined;
    const p = await auditLeaves(store, { size: 3, root: store.latestCheckpoint()!.root }, { onMismatch: (e) => (mismatch = e) });
    expect(p.complete).toBe(false);
    expect(mismatch?.message).toMatch(/entry 2 commits to state/);
  });

  it('start-up reads the policy in force from the newest entry: here the older one it names', async () => {
    // The start-up check trusts the signed newest entry; the audit (above) is what catches a wrong one.
    const { store } = await wrongHeads();
    expect(committedNewest(store, 'policy')!.entry.chain).toBe(A.chain);
  });
});
