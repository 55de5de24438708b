// Every reader of a pruned log (issue 40) gives what it gave before pruning: the CLI's receipt,
// export, replay and tail, and retention's binary search over entry times, each run on a log and on
// its pruned copy (entries below 512 in the archive only) and compared.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstSeqAfter } from '../../src/audit/retention.js';
import { logPath, openSqliteStore } from '../../src/store/node.js';
import { runVouch } from '../helpers/cli.js';
import { makeLog } from '../store/_archive-log.js';

const temps: string[] = [];
const tempDir = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  temps.push(d);
  return d;
};
let whole: string;
let pruned: string;

beforeAll(async () => {
  whole = await makeLog(600, 'agent', tempDir('vouch-prune-readers-'));
  expect((await runVouch('log', 'archive', '--data', whole)).code).toBe(0);
  pruned = tempDir('vouch-prune-readers-copy-');
  cpSync(whole, pruned, { recursive: true });
  expect((await runVouch('log', 'prune', '--data', pruned, '--tenant', 'default', '--json')).json).toMatchObject({ below: 512 });
}, 120_000);

afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

/** The same command on both logs, its output with the data directory's path made neutral. */
async function both(...args: string[]): Promise<[string, string, number]> {
  const a = await runVouch(...args, '--data', whole);
  const b = await runVouch(...args, '--data', pruned);
  expect(b.code).toBe(a.code);
  return [a.out.replaceAll(whole, 'DATA'), b.out.replaceAll(pruned, 'DATA'), b.code];
}

describe('readers of a pruned log', () => {
  it('vouch receipt of a pruned entry: the same receipt', async () => {
    const [a, b, code] = await both('receipt', '300');
    expect(code).toBe(0);
    expect(b).toBe(a);
    expect(b).toContain('300');
  });

  it('vouch export: the same bundle, entry for entry', async () => {
    const out = (d: string) => join(d, 'bundle');
    const a = await runVouch('export', '-o', out(whole), '--data', whole, '--payloads');
    const b = await runVouch('export', '-o', out(pruned), '--data', pruned, '--payloads');
    expect([a.code, b.code]).toEqual([0, 0]);
    const files = readdirSync(out(whole)).sort();
    expect(readdirSync(out(pruned)).sort()).toEqual(files);
    for (const f of files.filter((f) => /entries|checkpoint/.test(f))) expect(readFileSync(join(out(pruned), f))).toEqual(readFileSync(join(out(whole), f)));
  });

  it('vouch replay over pruned entries: the same findings', async () => {
    const [a, b] = await both('replay', '--from', '200', '--to', '300', '--json');
    expect(b).toBe(a);
  });

  it('retention\'s binary search over entry times: the same first seq', async () => {
    const seqs: number[] = [];
    for (const d of [whole, pruned]) {
      const s = openSqliteStore(logPath(d, 'default'), { readonly: true });
      try {
        const target = { size: async () => s.size(), entry: async (n: number) => s.entry(n)?.bytes };
        seqs.push(await firstSeqAfter(target, Date.parse('2026-12-04T00:00:00Z')), await firstSeqAfter(target, Date.parse('2026-12-06T00:00:00Z')));
      } finally {
        s.close();
      }
    }
    expect(seqs).toEqual([0, 600, 0, 600]);
  });
});
