// Attacker's pass over `vouch verify FILE.json --data DIR` (the vouch-link check): the holder of an
// exported SEP-3004 file edits the `vouch` member of a record (not in the contract's protected
// body, so C-REC-1..7 cannot see it): flips the chain's effect, claims an erasure, points the
// receipt at another tenant's log or another seq. Each must fail the link check against the log.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { captureIo, generateLog } from './_generate.js';

let dir: string;
let text: string;

const cli = async (...argv: string[]) => {
  const c = captureIo();
  const code = await main(argv, c.io);
  return { code, out: c.text(), err: c.errText() };
};

beforeAll(async () => {
  const g = await generateLog(24, { concurrency: 1 });
  dir = g.dir;
  await g.close();
  const out = join(mkdtempSync(join(tmpdir(), 'vouch-sep3004-link-')), 'records.json');
  const r = await cli('export', '--format', 'sep3004', '-o', out, '--data', dir);
  expect(r.code).toBe(0);
  text = readFileSync(out, 'utf8');
}, 180_000);

async function linkOf(edit: (doc: any) => void) {
  const doc = JSON.parse(text);
  edit(doc);
  const p = join(mkdtempSync(join(tmpdir(), 'vouch-sep3004-link-')), 'edited.json');
  writeFileSync(p, JSON.stringify(doc));
  const v = await cli('verify', p, '--data', dir, '--json');
  return { code: v.code, link: JSON.parse(v.out).checks.find((c: any) => c.id === 'vouch-link') };
}

describe('vouch verify --data: the vouch member of each record is the log\'s too', () => {
  it('the export as written passes', async () => {
    const { code, link } = await linkOf(() => undefined);
    expect(link.status).toBe('pass');
    expect(code).toBe(0);
  });

  const edits: Array<[string, (doc: any) => void]> = [
    ['a denied record\'s vouch.chain.effect flipped to allow', (doc) => { const r = doc.records.find((x: any) => x.outcome === 'denied'); r.vouch.chain = { effect: 'allow', status: 'success' }; }],
    ['vouch.input claims an erasure that never named it', (doc) => { const r = doc.records.find((x: any) => x.vouch.input.digest); r.vouch.input.erased = { seq: doc.records[0].vouch.seq }; }],
    ['vouch.input names another payload digest', (doc) => { const r = doc.records.find((x: any) => x.vouch.input.digest); r.vouch.input.digest = `sha256:${'cd'.repeat(32)}`; }],
    ['vouch.receipt points at another tenant\'s log', (doc) => { const r = doc.records[1]; r.vouch.receipt.command += ' --tenant globex'; }],
    ['vouch.receipt points at another seq', (doc) => { const r = doc.records[1]; r.vouch.receipt = { command: 'vouch receipt 3', url: '/v1/entries/3' }; }],
    ['vouch.origin names another log', (doc) => { doc.records[1].vouch.origin = 'vouch.example/globex'; }],
    ['vouch.seq of two records swapped', (doc) => { const [a, b] = [doc.records[1], doc.records[2]]; [a.vouch.seq, b.vouch.seq] = [b.vouch.seq, a.vouch.seq]; }],
  ];
  for (const [name, edit] of edits) {
    it(`the file holder edits it: ${name}`, async () => {
      const { code, link } = await linkOf(edit);
      expect(link.status).toBe('fail');
      expect(code).not.toBe(0);
    });
  }
});
