// Issue 35, clean cut of the log's end: `vouch verify RECEIPT --witness VKEY` says how far the
// newest witness cosignature is behind the newest checkpoint it holds (the receipt's, or the newer
// one given with --checkpoint), in the verdict line and in --json `witnessed`.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { formatVkey, parseNote } from '../../src/log/index.js';
import { attachCosignatures, createCosigner, formatCosignerVkey } from '../../src/witness/index.js';
import { captureIo } from '../audit/_generate.js';
import { keys } from '../execution/_log.js';
import { logWithReceipts } from './_receipts.js';

const dir = mkdtempSync(join(tmpdir(), 'vouch-witness-lag-'));
const file = (name: string, text: string) => (writeFileSync(join(dir, name), text), join(dir, name));
const witness = createCosigner('w.example/1', 'Ed25519', new Uint8Array(32).fill(5));
const T1 = Math.floor(Date.now() / 1000) - 3600; // cosignatures dated in the future are refused
const T2 = T1 + 600;
const iso = (t: number) => new Date(t * 1000).toISOString();
const cosigned = (note: string, ts: number) => attachCosignatures(note, [witness.cosign(parseNote(note).text, ts)]);

let l: Awaited<ReturnType<typeof logWithReceipts>>;
let vkeys: string;
let wkey: string;
let receipt: string; // entry 1 at the checkpoint of size 3, cosigned at T1
let newer: { from: number; to: number; proof: string[]; checkpoint: string }; // size 6, not cosigned

async function verify(...args: string[]) {
  const c = captureIo();
  const code = await main(['verify', receipt, '--key', vkeys, ...args], c.io);
  return { code, out: c.text(), err: c.errText() };
}

beforeAll(async () => {
  l = await logWithReceipts(6);
  const r = await l.receipt(1, 3);
  receipt = file('receipt.json', JSON.stringify({ ...r, checkpoint: cosigned(r.checkpoint, T1) }));
  vkeys = file('log.vkeys', keys.verifiers.map((v) => formatVkey(v.name, v.alg, v.publicKey)).join('\n') + '\n');
  wkey = formatCosignerVkey(witness);
  newer = await l.consistency(3, 6);
});
afterAll(() => l.log.close());

describe('vouch verify: how far the newest witness cosignature is behind', () => {
  it('the receipt\'s own cosigned checkpoint: 0 entries behind, at its time', async () => {
    const r = await verify('--witness', wkey);
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toContain(`VALID (ML-DSA-65 + Ed25519; post-quantum: ML-DSA-65 (ML-DSA-65 or ML-DSA-44 required); truncation: not checked; newest witness cosignature covers size 3 (0 entries behind the checkpoint) at ${iso(T1)})`);
    const j = JSON.parse((await verify('--witness', wkey, '--json')).out);
    expect(j.witnessed).toEqual({ size: 3, checkpointSize: 3, behind: 0, time: iso(T1) });
  });

  it('a newer checkpoint no witness cosigned yet: the cosignature is 3 entries behind it', async () => {
    const r = await verify('--witness', wkey, '--checkpoint', file('newer.json', JSON.stringify(newer)));
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toContain(`truncation: checked; newest witness cosignature covers size 3 (3 entries behind the checkpoint of size 6) at ${iso(T1)})`);
    const j = JSON.parse((await verify('--witness', wkey, '--checkpoint', join(dir, 'newer.json'), '--json')).out);
    expect(j.witnessed).toEqual({ size: 3, checkpointSize: 6, behind: 3, time: iso(T1) });
    expect(j.witnessTime).toBe(iso(T1)); // the receipt's checkpoint's cosignatures, as before
  });

  it('a newer checkpoint cosigned itself: 0 behind, at its time; a bad cosignature on it counts for nothing', async () => {
    const good = await verify('--witness', wkey, '--checkpoint', file('newer-cosigned.json', JSON.stringify({ ...newer, checkpoint: cosigned(newer.checkpoint, T2) })), '--json');
    expect(JSON.parse(good.out).witnessed).toEqual({ size: 6, checkpointSize: 6, behind: 0, time: iso(T2) });
    // The witness's line for the receipt's checkpoint moved onto the newer one: it does not verify there.
    const line = witness.cosign(parseNote((await l.receipt(1, 3)).checkpoint).text, T2);
    const moved = await verify('--witness', wkey, '--checkpoint', file('newer-moved.json', JSON.stringify({ ...newer, checkpoint: attachCosignatures(newer.checkpoint, [line]) })), '--json');
    expect(JSON.parse(moved.out).witnessed).toEqual({ size: 3, checkpointSize: 6, behind: 3, time: iso(T1) });
  });

  it('without --witness, or when the witness policy fails, the verdict says nothing of witnesses', async () => {
    expect((await verify()).out).not.toMatch(/witness cosignature/);
    const other = formatCosignerVkey(createCosigner('w.example/2', 'Ed25519', new Uint8Array(32).fill(6)));
    const r = await verify('--witness', other, '--min-witnesses', '1');
    expect(r.code).toBe(1);
    expect(r.out).not.toMatch(/newest witness cosignature/);
  });
});
