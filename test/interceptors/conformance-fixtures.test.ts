// The 14 SEP-2624 protocol fixtures (fixtures/conformance, Apache-2.0), run in process against
// the chain executor: list / invoke / apply steps, compared as JCS after stripping volatile keys.
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalText } from '../../src/canonical/index.js';
import { codeOf } from '../../src/errors.js';
import { CONFORMANCE_VOLATILE_KEYS, decisionOf, executeChain, stripVolatile } from '../../src/interceptors/chain.js';
import { createBehavior } from '../../src/interceptors/conformance-behaviors.js';
import { parseDeclaration } from '../../src/protocol/index.js';
import { invokeInterceptor } from '../../src/interceptors/invoke.js';
import { listInterceptors } from '../../src/interceptors/list.js';
import type { Interceptor, Phase } from '../../src/interceptors/types.js';

const dir = new URL('../../fixtures/conformance/fixtures/protocol/', import.meta.url);
const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();

// The JSON-RPC code each error becomes on the wire (DESIGN.md section 3).
const RPC: Record<string, number> = { ERR_UNKNOWN_INTERCEPTOR: -32602, ERR_INTERCEPTOR_FAILED: -32603, ERR_CHAIN_TIMEOUT: -32000 };

type Step =
  | { op: 'list'; event: string | null; expect: { canonical: string } }
  | { op: 'invoke'; params: { name: string; event: string; phase: Phase; payload: unknown }; expect: { canonical?: string; errorCode?: number } }
  | {
      op: 'apply';
      event: string;
      phase: Phase;
      payload: unknown;
      context: { sessionId: string } | null;
      expect: { decision: 'allow' | 'deny'; finalPayloadCanonical?: string; forbids?: string[]; requires?: string[] };
    };

async function invokeByName(session: Interceptor[], params: { name: string; event: string; phase: Phase; payload: unknown }) {
  try {
    const ic = session.find((i) => i.descriptor.name === params.name);
    if (!ic) return { errorCode: RPC.ERR_UNKNOWN_INTERCEPTOR };
    return { result: await invokeInterceptor(ic, params, { time: '2026-01-01T00:00:00Z' }) };
  } catch (e) {
    return { errorCode: RPC[codeOf(e)] ?? -32603 };
  }
}

describe('SEP-2624 protocol conformance fixtures', () => {
  it('has all 14 protocol fixtures', () => expect(files).toHaveLength(14));

  for (const file of files) {
    const fixture = JSON.parse(readFileSync(new URL(file, dir), 'utf8'));
    it(fixture.id, async () => {
      const seen: (string | undefined)[] = [];
      const session = fixture.interceptors.map((decl: { behavior: string }, i: number) => {
        const ic = createBehavior(decl.behavior, parseDeclaration(decl, `/interceptors/${i}`));
        // Spy on context: `context.sessionId` must reach every interceptor on apply.
        return { ...ic, run: (p: unknown, ctx: { sessionId?: string }) => (seen.push(ctx.sessionId), ic.run(p, ctx as never)) };
      });
      for (const step of fixture.steps as Step[]) {
        if (step.op === 'list') {
          const actual = stripVolatile(listInterceptors(session, step.event), CONFORMANCE_VOLATILE_KEYS);
          expect(canonicalText(actual)).toBe(step.expect.canonical);
        } else if (step.op === 'invoke') {
          const out = await invokeByName(session, step.params);
          if (step.expect.errorCode !== undefined) expect(out.errorCode).toBe(step.expect.errorCode);
          else expect(canonicalText(stripVolatile(out.result, CONFORMANCE_VOLATILE_KEYS))).toBe(step.expect.canonical);
        } else {
          const ctx = { time: '2026-01-01T00:00:00Z', ...(step.context ? { sessionId: step.context.sessionId } : {}) };
          const { result } = await executeChain(session, { event: step.event, phase: step.phase, payload: step.payload }, ctx);
          expect(decisionOf(result)).toBe(step.expect.decision);
          const finalText = canonicalText(result.finalPayload);
          if (step.expect.finalPayloadCanonical !== undefined) expect(finalText).toBe(step.expect.finalPayloadCanonical);
          for (const s of step.expect.forbids ?? []) expect(finalText).not.toContain(s);
          for (const s of step.expect.requires ?? []) expect(finalText).toContain(s);
          if (step.context) expect(seen.every((id) => id === step.context?.sessionId)).toBe(true);
        }
      }
    });
  }
});
