// What changed at each drift path: both values where nothing was redacted, digests only where a
// redactor acted on the path (or on a key above it), and digests when the input is unknown.
import { describe, expect, it } from 'vitest';
import { digestJson } from '../../src/canonical/index.js';
import { computeDrift, driftValues, pointerSegments } from '../../src/execution/index.js';

describe('driftValues', () => {
  it('reads RFC 6901 escaped keys and array indices', () => {
    expect(pointerSegments('/a~1b/c~0d/0')).toEqual(['a/b', 'c~d', '0']);
    const intent = { 'a/b': { 'c~d': [1, 2] }, list: ['x'] };
    const executed = { 'a/b': { 'c~d': [1, 3] }, list: ['x', 'y'] };
    const d = computeDrift(intent, executed);
    expect(driftValues(d.items, intent, executed, { value: intent })).toEqual([
      { path: '/a~1b/c~0d/1', op: 'replace', severity: 'suspicious', authorized: 2, executed: 3 },
      { path: '/list/1', op: 'add', severity: 'suspicious', executed: 'y' },
    ]);
  });

  it('shows digests only where a redactor changed the authorized value, or a key above it', () => {
    const input = { to: 'bob@example.com', card: { number: '4111 1111 1111 1111' }, n: 1 };
    const intent = { to: '[EMAIL_REDACTED]', card: '[CARD_REDACTED]', n: 1 };
    const executed = { to: 'eve@example.com', card: { number: '4000 0000 0000 0002' }, n: 2 };
    const d = computeDrift(intent, executed);
    const v = driftValues(d.items, intent, executed, { value: input });
    expect(v).toEqual([
      { path: '/card', op: 'replace', severity: 'suspicious', redacted: true, authorizedDigest: digestJson('[CARD_REDACTED]'), executedDigest: digestJson(executed.card) },
      { path: '/n', op: 'replace', severity: 'suspicious', authorized: 1, executed: 2 },
      { path: '/to', op: 'replace', severity: 'critical', redacted: true, authorizedDigest: digestJson('[EMAIL_REDACTED]'), executedDigest: digestJson('eve@example.com') },
    ]);
    expect(JSON.stringify(v)).not.toMatch(/eve@|4000 0000/);
  });

  it('without the input (erased) every value is a digest: fail closed', () => {
    const d = computeDrift({ a: 1 }, { a: 2 });
    expect(driftValues(d.items, { a: 1 }, { a: 2 }, undefined)).toEqual([{ path: '/a', op: 'replace', severity: 'suspicious', redacted: true, authorizedDigest: digestJson(1), executedDigest: digestJson(2) }]);
  });
});
