// docs/entries.schema.json against the entry types: the schema's fields and required lists must be
// the typed field lists (which TypeScript ties to the types), and the schema and the readers must
// agree on real entries (the golden log) and on broken ones. Fails on any drift between the three.
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { DECISION_CORE_FIELDS, DECISION_EXTRA_FIELDS, ERASURE_FIELDS, EXECUTION_FIELDS, PIN_FIELDS, POLICY_FIELDS, readEntry } from '../../src/entries/index.js';
import type { Entry } from '../../src/log/index.js';

const schema = JSON.parse(readFileSync(new URL('../../docs/entries.schema.json', import.meta.url), 'utf8'));
const golden = readFileSync(new URL('../../fixtures/entries/golden-v1.jsonl', import.meta.url), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Entry);
const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
const HEADER = ['v', 'log', 'seq', 'prev', 'type', 'heads'];
/** `heads` (issue 35) is absent on entries written before it. */
const REQUIRED_HEADER = HEADER.filter((k) => k !== 'heads');

const SPECS: Record<string, Record<string, 'required' | 'optional'>> = {
  decision: { ...DECISION_CORE_FIELDS, ...DECISION_EXTRA_FIELDS },
  execution: EXECUTION_FIELDS,
  policy: POLICY_FIELDS,
  erasure: ERASURE_FIELDS,
  pin: PIN_FIELDS,
};

describe('docs/entries.schema.json', () => {
  for (const [type, spec] of Object.entries(SPECS)) {
    it(`${type}: the schema names exactly the typed fields, required as the type declares`, () => {
      const def = schema.definitions[type];
      expect(Object.keys(def.properties).filter((k) => !HEADER.includes(k)).sort()).toEqual(Object.keys(spec).sort());
      const required = Object.entries(spec).filter(([, r]) => r === 'required').map(([k]) => k);
      expect([...def.required].sort()).toEqual([...REQUIRED_HEADER, ...required].sort());
    });
  }

  it('every entry of the golden log is valid for the schema and for its reader', () => {
    expect(new Set(golden.map((e) => e.type))).toEqual(new Set(['decision', 'execution', 'policy', 'erasure', 'pin']));
    for (const e of golden) {
      expect(validate(e), `${e.seq}: ${JSON.stringify(validate.errors)}`).toBe(true);
      expect(() => readEntry(e)).not.toThrow();
    }
  });

  it('a decision with the MCP 2026 fields (protocolVersion, clientInfo) is valid for both; old entries without them stay valid', () => {
    const e = structuredClone(golden.find((x) => x.type === 'decision')!) as unknown as Record<string, unknown>;
    expect(e.clientInfo).toBeUndefined();
    Object.assign(e, { protocolVersion: '2026-07-28', clientInfo: { name: 'some-client', version: '2.4.0' } });
    expect(validate(e), JSON.stringify(validate.errors)).toBe(true);
    expect(() => readEntry(e as unknown as Entry)).not.toThrow();
  });

  // One broken field per case: the reader and the schema must both refuse it.
  const breaks: [string, (e: Record<string, unknown>) => unknown][] = [
    ['decision without event', (e) => e.type === 'decision' && delete e.event],
    ['decision with a phase outside request/response', (e) => e.type === 'decision' && (e.phase = 'both')],
    ['decision effect neither allow nor deny', (e) => e.type === 'decision' && (e.decision = { effect: 'maybe' })],
    ['decision intent not a digest', (e) => e.type === 'decision' && (e.intent = { digest: 'md5:1' })],
    ['decision policy without policySet', (e) => e.type === 'decision' && (e.policy = { chain: (e.policy as { chain: string }).chain, engines: {} })],
    ['decision authorization negative', (e) => e.type === 'decision' && (e.authorization = -1)],
    ['decision clientInfo without a string version', (e) => e.type === 'decision' && (e.clientInfo = { name: 'c', version: 1 })],
    ['decision clientInfo with more than name and version', (e) => e.type === 'decision' && (e.clientInfo = { name: 'c', version: '1', title: 'T' })],
    ['execution flags with an unknown flag', (e) => e.type === 'execution' && (e.flags = ['fine'])],
    ['execution executed missing', (e) => e.type === 'execution' && delete e.executed],
    ['policy chain not a digest', (e) => e.type === 'policy' && (e.chain = 'x')],
    ['policy pinned not a boolean', (e) => e.type === 'policy' && (e.pinned = 'yes')],
    ['erasure without digest', (e) => e.type === 'erasure' && delete e.digest],
    ['pin with an unknown action', (e) => e.type === 'pin' && (e.action = 'stolen')],
  ];
  for (const [name, mutate] of breaks) {
    it(`refused by reader and schema alike: ${name}`, () => {
      let n = 0;
      for (const original of golden) {
        const e = structuredClone(original) as unknown as Record<string, unknown>;
        if (!mutate(e)) continue;
        n++;
        expect(validate(e), `schema accepted entry ${original.seq}`).toBe(false);
        expect(() => readEntry(e as unknown as Entry), `reader accepted entry ${original.seq}`).toThrow();
      }
      expect(n).toBeGreaterThan(0);
    });
  }
});
