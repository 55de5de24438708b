// All 14 SEP-2624 protocol fixtures against the real HTTP server over MCP JSON-RPC, on both eras:
// the 2025-11-25 client (initialize) and the SDK v2 client pinned to 2026-07-28.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runFixture, type Fixture } from './runner.js';

const dir = new URL('../../fixtures/conformance/fixtures/protocol/', import.meta.url);
const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();

describe('SEP-2624 conformance over HTTP', () => {
  it('has the 14 protocol fixtures', () => expect(files).toHaveLength(14));
  for (const era of ['2025-11-25', '2026-07-28'] as const) {
    for (const file of files) {
      const fixture = JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as Fixture;
      it(`${fixture.id} (MCP ${era})`, async () => {
        const out = await runFixture(fixture, era);
        expect(out.steps.filter((s) => !s.ok)).toEqual([]);
        expect(out.ok).toBe(true);
      });
    }
  }
});
