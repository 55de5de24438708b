// The shared schema-guard verdict table inside workerd; the same table runs on Node
// (test/interceptors/builtin/schema-table.test.ts): same verdicts, same messages.
import { describe, expect, it } from 'vitest';
import { checkArguments } from '../../../src/interceptors/builtin/schema-guard.js';
import { SCHEMA_CASES } from '../../interceptors/builtin/_schema-table.js';

describe('schema-guard verdicts (shared table, workerd)', () => {
  it.each(SCHEMA_CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const out = checkArguments({ name: 't', arguments: c.args }, { tool: 't', inputSchema: c.schema }, { unknownTool: 'error' });
    if (typeof c.expect === 'string') expect(out.messages?.[0].message).toContain(c.expect);
    else expect(out.messages?.map((m) => m.message) ?? []).toEqual(c.expect);
    expect(out.valid).toBe(c.expect.length === 0);
  });
});
