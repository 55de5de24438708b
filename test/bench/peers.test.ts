// CI's smoke of the peers bench (bench/peers.bench.ts) at toy size: the peer's attestations and
// vouch's signed and durable decisions, each vouch line read against the peer's of the same run.
import { describe, expect, it } from 'vitest';
import { run, TOY } from '../../bench/peers.bench.js';
import { expectLines, runToy } from './_smoke.js';

describe('bench/peers.bench.ts', () => {
  it('at toy size, every line is there with the peer as its baseline', async () => {
    const got = await runToy('peers', (ctx) => run(ctx, TOY));
    expectLines(got, ['aps.attestation', 'vouch.decide.signed', 'vouch.decide.durable']);
    for (const n of ['vouch.decide.signed', 'vouch.decide.durable']) expect(got.get(n)!.baseline).toBe(got.get('aps.attestation')!.value);
  }, 120_000);
});
