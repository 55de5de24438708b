// OTel span attributes of a decision with enrichers (issue 39): the score and claim counts, which
// enricher failed or broke its contract, and never the text it added to the result.
import { describe, expect, it } from 'vitest';
import { entryAttributes } from '../../src/observe/otel.js';
import type { Entry } from '../../src/log/index.js';

const entry = {
  type: 'decision',
  event: 'tools/call',
  phase: 'response',
  decision: {
    effect: 'allow',
    results: [
      { interceptor: 'authz', type: 'validation', phase: 'response', valid: true },
      { interceptor: 'claims', type: 'mutation', phase: 'response', modified: true, payloadDigest: 'sha256:00', info: { role: 'enricher', kind: 'claims', enrichment: 'sha256:11', score: 0.75, counts: { claims: 5, supported: 3, contradicted: 1, unverified: 1 } } },
      { interceptor: 'slow', type: 'mutation', phase: 'response', modified: false, payloadDigest: 'sha256:00', info: { role: 'enricher', error: 'timed out after 2000 ms', timedOut: true } },
      { interceptor: 'rewriter', type: 'mutation', phase: 'response', modified: false, payloadDigest: 'sha256:00', info: { role: 'enricher', violations: ['/content/0', '/isError'] } },
    ],
  },
} as unknown as Entry;

describe('OTel attributes of enrichments', () => {
  it('carry the score, the claim counts, failures and violations by number, never text', () => {
    const a = entryAttributes({ tenant: 'default', seq: 7, leaf: new Uint8Array(32), bytes: new Uint8Array() }, entry);
    expect(a['vouch.enrichers']).toEqual(['claims', 'slow', 'rewriter']);
    expect(a['vouch.enrichment.claims.score']).toBe(0.75);
    expect(a['vouch.enrichment.claims.claims']).toBe(5);
    expect(a['vouch.enrichment.claims.contradicted']).toBe(1);
    expect(a['vouch.enrichment.slow.failed']).toBe(true);
    expect(a['vouch.enrichment.rewriter.violations']).toBe(2);
    expect(JSON.stringify(a)).not.toContain('timed out');
    expect(JSON.stringify(a)).not.toContain('/content/0');
  });
});
