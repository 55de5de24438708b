// Attacker's pass over SEP-3004 export x payload retention: a decision whose input payload a
// retention batch erased (an erasure entry with `digests`, not `digest`) must be shown as erased,
// naming that entry, exactly as one erased on request is; the vouch-link check still passes.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { retentionTargetOf, runRetention, type Sep3004Record } from '../../src/audit/index.js';
import { main } from '../../src/cli/main.js';
import { decodeEntry } from '../../src/log/index.js';
import { logPortOf } from '../../src/store/log-port.js';
import { logPath, openSqliteStore } from '../../src/store/node.js';
import { BASE_TIME, captureIo, generateLog } from './_generate.js';

let dir: string;
let doc: { records: Sep3004Record[]; segment: any };
let batchSeqs: number[];
let erasedBy: Map<string, number>;

const cli = async (...argv: string[]) => {
  const c = captureIo();
  const code = await main(argv, c.io);
  return { code, out: c.text(), err: c.errText() };
};

beforeAll(async () => {
  const g = await generateLog(24);
  dir = g.dir;
  const t = g.dataDir.log('default');
  // A day after the last of them: every payload is one no entry has named for a day.
  const now = new Date(BASE_TIME + 2 * 86_400_000).toISOString();
  const run = await runRetention(retentionTargetOf(logPortOf(t.origin, t.store, t.appender)), { days: 1, now, batch: 3 });
  expect(run.erased).toBeGreaterThan(1);
  batchSeqs = run.seqs;
  await g.close();
  const store = openSqliteStore(logPath(dir, 'default'), { readonly: true });
  erasedBy = new Map();
  for (const seq of batchSeqs) for (const d of (decodeEntry([...store.entries(seq, seq + 1)][0].bytes) as any).digests) if (!erasedBy.has(d)) erasedBy.set(d, seq);
  store.close();
  const out = join(mkdtempSync(join(tmpdir(), 'vouch-sep3004-ret-')), 'records.json');
  const r = await cli('export', '--format', 'sep3004', '-o', out, '--data', dir);
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  doc = JSON.parse(readFileSync(out, 'utf8'));
}, 180_000);

describe('SEP-3004 export after payload retention', () => {
  it('shows each decision whose input a retention batch erased as erased, naming that erasure entry', () => {
    const hit = doc.records.filter((r) => 'digest' in r.vouch.input && erasedBy.has(r.vouch.input.digest));
    expect(hit.length).toBeGreaterThan(0);
    for (const r of hit) expect(r.vouch.input).toEqual({ digest: (r.vouch.input as any).digest, erased: { seq: erasedBy.get((r.vouch.input as any).digest) } });
    expect(doc.segment.counts.erased).toBe(hit.length);
    // And none that no erasure names is shown as erased.
    for (const r of doc.records) if ('digest' in r.vouch.input && !erasedBy.has(r.vouch.input.digest)) expect(r.vouch.input.erased).toBeUndefined();
  });

  it('vouch verify --data still finds every record is what its signed entry says', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'vouch-sep3004-ret-')), 'records.json');
    expect((await cli('export', '--format', 'sep3004', '-o', out, '--data', dir)).code).toBe(0);
    const v = await cli('verify', out, '--data', dir, '--json');
    expect(v.code).toBe(0);
    expect(JSON.parse(v.out).checks.find((c: any) => c.id === 'vouch-link').status).toBe('pass');
  });
});
