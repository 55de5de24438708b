// Properties over random chains (fast-check): the order interceptors are registered in never
// changes the result, and nothing (ordering, crashes, audit, fail-open) turns a deny into an allow.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalText } from '../../src/canonical/index.js';
import { decisionOf, executeChain, stripVolatile } from '../../src/interceptors/chain.js';
import type { Interceptor, Outcome } from '../../src/interceptors/types.js';
import { CTX, make } from './chain-kit.js';

type Kind = 'validation' | 'mutation' | 'observability';
type Behavior = 'allow' | 'deny' | 'warn' | 'crash' | 'modify' | 'keep';
interface Spec {
  kind: Kind;
  behavior: Behavior;
  audit: boolean;
  failOpen: boolean;
  priority: number;
}

const spec: fc.Arbitrary<Spec> = fc.oneof(
  fc.record({ kind: fc.constant<Kind>('validation'), behavior: fc.constantFrom<Behavior>('allow', 'deny', 'warn', 'crash') }),
  fc.record({ kind: fc.constant<Kind>('mutation'), behavior: fc.constantFrom<Behavior>('modify', 'keep', 'crash') }),
  fc.record({ kind: fc.constant<Kind>('observability'), behavior: fc.constantFrom<Behavior>('allow', 'crash') }),
).chain((base) => fc.record({ kind: fc.constant(base.kind), behavior: fc.constant(base.behavior), audit: fc.boolean(), failOpen: fc.boolean(), priority: fc.integer({ min: -2, max: 2 }) }));

function build(s: Spec, i: number): Interceptor {
  const name = `n${i}`;
  const run = (p: unknown): Outcome => {
    if (s.behavior === 'crash') throw new Error(`${name} crashed`);
    if (s.kind === 'observability') return { observed: true, metrics: { n: i } };
    if (s.behavior === 'modify') {
      const o = p as { trail: string[] };
      return { modified: true, payload: { ...o, trail: [...o.trail, name] } };
    }
    if (s.behavior === 'keep') return { modified: false, payload: p };
    if (s.behavior === 'deny') return { valid: false, severity: 'error', messages: [{ message: `${name} denies`, severity: 'error' }] };
    if (s.behavior === 'warn') return { valid: false, severity: 'warning' };
    return { valid: true };
  };
  return make(s.kind, name, run, { ...(s.audit && { mode: 'audit' }), ...(s.failOpen && { failOpen: true }), priorityHint: s.priority });
}

// failOpen governs failures only (a crash or a timeout): an explicit deny from an active
// validator blocks whether or not it is failOpen (as in the SEP reference executor).
const blocks = (s: Spec) =>
  !s.audit &&
  ((s.kind === 'validation' && s.behavior === 'deny') || (!s.failOpen && s.behavior === 'crash' && (s.kind === 'validation' || s.kind === 'mutation')));

const chains = fc
  .array(spec, { maxLength: 8 })
  .chain((specs) => {
    const ics = specs.map(build);
    return fc.record({
      specs: fc.constant(specs),
      ics: fc.constant(ics),
      shuffled: fc.shuffledSubarray(ics, { minLength: ics.length, maxLength: ics.length }),
      phase: fc.constantFrom<'request' | 'response'>('request', 'response'),
    });
  });

describe('chain properties', () => {
  it('deny iff an active validator denies, or an active non-failOpen validator or mutator crashes', async () => {
    await fc.assert(
      fc.asyncProperty(chains, async ({ specs, ics, phase }) => {
        const { result } = await executeChain(ics, { event: 'tools/call', phase, payload: { trail: [] } }, CTX);
        expect(decisionOf(result)).toBe(specs.some(blocks) ? 'deny' : 'allow');
        if (result.status === 'success') {
          // Exactly the active modifying mutators applied, in (priority, name) order.
          const applied = specs
            .map((s, i) => ({ s, name: `n${i}` }))
            .filter(({ s }) => s.kind === 'mutation' && s.behavior === 'modify' && !s.audit)
            .sort((a, b) => a.s.priority - b.s.priority || (a.name < b.name ? -1 : 1))
            .map(({ name }) => name);
          expect(result.finalPayload).toEqual({ trail: applied });
        } else if (result.status === 'mutation_failed') {
          expect(result.finalPayload).toEqual({ trail: [] });
        }
      }),
      { numRuns: 300 },
    );
  });

  it('registration order never changes the result (same JCS after stripVolatile)', async () => {
    await fc.assert(
      fc.asyncProperty(chains, async ({ ics, shuffled, phase }) => {
        const request = { event: 'tools/call', phase, payload: { trail: [] } };
        const clock = { monotonic: () => performance.now() };
        const a = await executeChain(ics, request, CTX, { clock });
        const b = await executeChain(shuffled, request, CTX);
        expect(canonicalText(stripVolatile(b.result))).toBe(canonicalText(stripVolatile(a.result)));
      }),
      { numRuns: 300 },
    );
  });
});
