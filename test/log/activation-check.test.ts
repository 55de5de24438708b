// The entry checks `vouch log verify` and replay share: rules activated by an earlier policy entry
// (a gateway's mirror chain included), payloads stored or erased by an erasure entry.
import { describe, expect, it } from 'vitest';
import type { Digest } from '../../src/canonical/index.js';
import { ActivationTracker, PayloadPresenceCheck } from '../../src/log/activation-check.js';
import type { Entry } from '../../src/log/index.js';
import { openPayloadLedger } from '../../src/store/node.js';

const d = (c: string) => `sha256:${c.repeat(64)}` as Digest;
const head = (seq: number) => ({ v: 1 as const, log: 'test/x', seq, prev: '0'.repeat(64), time: '2026-12-01T00:00:00Z' });
const policy = (seq: number, chain: Digest, policySet: Digest, mirror?: Digest): Entry => ({ ...head(seq), type: 'policy', chain, policySet, ...(mirror && { mirror }) });
const decision = (seq: number, chain: Digest, policySet: Digest, input = d('9')): Entry => ({ ...head(seq), type: 'decision', policy: { chain, policySet, engines: {} }, input: { digest: input }, intent: null });

describe('ActivationTracker', () => {
  it('accepts decisions under an activated pair only, and only after its policy entry', () => {
    const t = new ActivationTracker();
    expect(t.visit(decision(0, d('a'), d('b')))).toMatchObject({ kind: 'activation', seq: 0 });
    expect(t.visit(decision(1, d('a'), d('b')))).toBeUndefined(); // one finding per pair
    t.visit(policy(1, d('a'), d('b')));
    expect(t.visit(decision(2, d('a'), d('b')))).toBeUndefined();
    // The same chain with another policy set, or another chain, was never activated.
    expect(t.visit(decision(3, d('a'), d('c')))).toMatchObject({ kind: 'activation', seq: 3 });
    expect(t.visit(decision(4, d('e'), d('b')))).toMatchObject({ kind: 'activation', seq: 4 });
    expect(t.visit({ ...head(5), type: 'decision' })).toMatchObject({ kind: 'activation', message: expect.stringContaining('names no chain') });
  });

  it('a gateway policy entry activates its mirror chain with the same policy set', () => {
    const t = new ActivationTracker();
    t.visit(policy(0, d('a'), d('b'), d('f')));
    expect(t.visit(decision(1, d('f'), d('b')))).toBeUndefined();
    expect(t.visit(decision(2, d('f'), d('c')))).toBeDefined();
  });
});

describe('PayloadPresenceCheck', () => {
  it('a missing payload is a finding unless an erasure entry (before or after) names it; a rewritten one is too', () => {
    const stored = new Set<Digest>([d('1')]);
    const c = new PayloadPresenceCheck((x) => (stored.has(x) ? new Uint8Array([1]) : undefined), openPayloadLedger());
    // Stored, but its bytes do not hash to the digest: rewritten.
    expect(c.visit(decision(0, d('a'), d('b'), d('1')))).toMatchObject({ kind: 'payload', seq: 0, message: expect.stringContaining('rewritten') });
    c.visit(decision(1, d('a'), d('b'), d('2'))); // erased later
    c.visit(decision(2, d('a'), d('b'), d('3'))); // gone, no erasure
    c.visit({ ...head(3), type: 'erasure', digest: d('2') });
    c.visit({ ...head(4), type: 'execution', executed: { digest: d('4') } }); // gone, no erasure
    expect(c.end()).toEqual([expect.objectContaining({ kind: 'payload', seq: 2 }), expect.objectContaining({ kind: 'payload', seq: 4 })]);
  });

  it('a retention erasure accounts only for the copy it took: named again after it and missing is a finding (file-level attacker)', () => {
    const c = new PayloadPresenceCheck(() => undefined, openPayloadLedger()); // every payload is gone
    c.visit(decision(0, d('a'), d('b'), d('5'))); // taken by retention erasure 2 (before 1)
    c.visit(decision(1, d('a'), d('b'), d('6'))); // named again at 3, after its copy was taken at 2
    c.visit({ ...head(2), type: 'erasure', digests: [d('5'), d('6')], before: 2 });
    c.visit(decision(3, d('a'), d('b'), d('6')));
    c.visit(decision(4, d('a'), d('b'), d('7'))); // erased on request at 5: accounted for at any seq
    c.visit({ ...head(5), type: 'erasure', digest: d('7') });
    c.visit(decision(6, d('a'), d('b'), d('7')));
    expect(c.end()).toEqual([expect.objectContaining({ kind: 'payload', seq: 3, message: expect.stringContaining('retention erasure 2 took only a copy') })]);
  });
});
