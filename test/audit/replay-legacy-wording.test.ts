// Issue 37 changed the words of Cedar's default deny ("... (default deny): no permit matched
// Tool::"x""). Entries signed before say "denied by policy (default deny)" and nothing more: they
// must still replay as matches, since the decision is the same; any other difference in those
// words is still a mismatch. Entries here are real decisions, copied into the log with the old
// words (validly signed: what an older vouch wrote).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayLog } from '../../src/audit/index.js';
import { storeReplaySource } from '../../src/audit/node-bundle.js';
import { logPath, openDataDir, openSqliteStore } from '../../src/store/node.js';
import { generateLog } from './_generate.js';

let dir: string;
let seqs: { legacy: number; changed: number; original: number };

/** Append a copy of the first default-deny decision with its deny words rewritten by `words`. */
async function appendCopy(words: (current: string) => string): Promise<number> {
  const dataDir = await openDataDir(dir, { thread: false });
  try {
    const t = dataDir.log('default');
    const all = [...t.store.entries(0, t.store.size())].map((e) => JSON.parse(new TextDecoder().decode(e.bytes)));
    const deny = all.find((e) => e.type === 'decision' && /\(default deny\): no permit matched/.test(e.decision.abortedAt?.reason ?? ''));
    const { v: _v, log: _l, seq: _s, prev: _p, heads: _h, ...body } = deny;
    const rewrite = (v: unknown): unknown => (typeof v === 'string' && v === deny.decision.abortedAt.reason ? words(v) : Array.isArray(v) ? v.map(rewrite) : typeof v === 'object' && v !== null ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, rewrite(x)])) : v);
    return (await t.appender.append({ ...body, decision: rewrite(body.decision) })).seq;
  } finally {
    await dataDir.close();
  }
}

beforeAll(async () => {
  const g = await generateLog(24);
  dir = g.dir;
  await g.close();
  const original = await appendCopy((w) => w);
  const legacy = await appendCopy((w) => w.slice(0, w.indexOf(': no permit matched')));
  const changed = await appendCopy((w) => w.replace(/Tool::"[^"]*"/, 'Tool::"something-else"'));
  seqs = { legacy, changed, original };
}, 120_000);
afterAll(() => undefined);

describe('replay of default denies recorded in the old words', () => {
  it('the old words replay as a match; other words are a mismatch at the message and the reason', async () => {
    const store = openSqliteStore(logPath(dir, 'default'), { readonly: true });
    try {
      const r = await replayLog(storeReplaySource(store), { includeMatches: true });
      const at = (seq: number) => r.results.find((x) => x.seq === seq);
      expect(at(seqs.original)?.status).toBe('match');
      expect(at(seqs.legacy)?.status).toBe('match');
      expect(at(seqs.changed)).toMatchObject({ status: 'mismatch', paths: expect.arrayContaining(['/decision/abortedAt/reason']) });
      expect(r.mismatch).toBe(1);
    } finally {
      store.close();
    }
  });
});
