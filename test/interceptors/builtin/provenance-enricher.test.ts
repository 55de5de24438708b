// provenanceOf's era fact: the session the model reads the result in. A gateway bridging a 2026
// client to a 2025 upstream records the client's version in its provenance facts; the era is the
// client's and the upstream's is named beside it; without that record the negotiated one counts.
import { describe, expect, it } from 'vitest';
import { PROVENANCE_FACTS } from '../../../src/interceptors/builtin/index.js';
import { provenanceOf, renderProvenance } from '../../../src/interceptors/builtin/provenance-enricher.js';

const ctx = (protocolVersion: string | undefined, facts: Record<string, unknown> = {}) => ({ server: 'everything', protocolVersion, enrichment: { results: [], facts: { [PROVENANCE_FACTS]: { pin: 'matched', outputSchema: 'none', tool: 'echo', ...facts } } } }) as never;

describe('provenance era', () => {
  it('a 2025 session: 2025, nothing beside it', () => {
    const p = provenanceOf(ctx('2025-11-25'));
    expect(p.facts.era).toEqual({ value: '2025', trust: 'observed' });
    expect(p.facts.upstreamEra).toBeUndefined();
    expect(renderProvenance(p)).toMatch(/; MCP 2025 session \(observed\)\.$/);
  });

  it("a 2026 client in front of a 2025 upstream: the client's 2026, the upstream's 2025 beside it", () => {
    const p = provenanceOf(ctx('2025-11-25', { clientProtocolVersion: '2026-07-28' }));
    expect(p.facts.era).toEqual({ value: '2026', trust: 'observed' });
    expect(p.facts.upstreamEra).toEqual({ value: '2025', trust: 'observed' });
    expect(renderProvenance(p)).toMatch(/; MCP 2026 session \(observed\), upstream MCP 2025 \(observed\)\.$/);
  });

  it('the same era on both sides is said once; no version known is unknown, claimed', () => {
    expect(provenanceOf(ctx('2026-07-28', { clientProtocolVersion: '2026-07-28' })).facts).not.toHaveProperty('upstreamEra');
    expect(provenanceOf(ctx(undefined)).facts.era).toEqual({ value: 'unknown', trust: 'claimed' });
  });
});
