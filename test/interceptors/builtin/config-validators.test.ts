// The config validators start-up runs are compiled ahead of time from the built-ins' schemas
// (scripts/build-config-validators.ts). The committed file must be what the schemas give now, and
// it must judge configs exactly as ajv compiling the same schemas at run time does.
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { CONFIG_VALIDATORS_OUT, configValidatorsSource } from '../../../scripts/build-config-validators.js';
import { BUILTIN_CONFIG_SCHEMAS } from '../../../src/interceptors/builtin/_config-schemas.js';
import { builtinConfigIssues } from '../../../src/interceptors/builtin/_config-validate.js';
import { CONFIG_VALIDATORS } from '../../../src/interceptors/builtin/_config-validators.generated.js';

describe('ahead-of-time config validators', () => {
  it('the committed generated file is what the schemas give (run npm run build:validators when this fails)', () => {
    expect(readFileSync(CONFIG_VALIDATORS_OUT, 'utf8')).toBe(configValidatorsSource());
  });

  it('has one validator per built-in schema, and nothing else', () => {
    expect(Object.keys(CONFIG_VALIDATORS).sort()).toEqual(Object.keys(BUILTIN_CONFIG_SCHEMAS).sort());
  });

  // Configs good and bad for every built-in: wrong types, unknown options, out-of-range numbers,
  // bad enum members, strings counted in code points (ucs2length), nested arrays.
  const samples: unknown[] = [
    undefined, null, {}, [], 'x', 7, { unknown: 1 }, { kinds: [] }, { kinds: ['email'] }, { kinds: ['nope'] },
    { max: 0 }, { max: 1.5 }, { max: 10, windowMs: 1000 }, { limit: -1 }, { roots: ['file:///tmp'] }, { roots: [''] },
    { tools: { a: {} } }, { tools: [{ name: 'x' }] }, { allow: ['a', ''] }, { deny: ['\u{1F600}'] }, { fields: [''] },
    { mode: 'enforce' }, { mode: 42 }, { unknown: 'deny' }, { unknownTools: 'allow' }, { policies: 'permit(principal, action, resource);' },
  ];
  for (const use of Object.keys(BUILTIN_CONFIG_SCHEMAS).sort()) {
    it(`${use}: the same verdict and errors as ajv compiling the schema at run time`, () => {
      const ajv = new Ajv2020({ allErrors: true, strict: true, validateFormats: false, validateSchema: false, logger: false });
      const live = ajv.compile(BUILTIN_CONFIG_SCHEMAS[use] as object);
      const pre = (CONFIG_VALIDATORS as unknown as Record<string, typeof live>)[use];
      const verdicts = new Set<boolean>();
      for (const s of samples) {
        const data = s ?? {};
        const a = live(data);
        const b = pre(data);
        expect(b, `${use} ${JSON.stringify(s)}`).toBe(a);
        expect(pre.errors ?? null).toEqual(live.errors ?? null);
        verdicts.add(a);
      }
      expect(verdicts.has(false), 'some sample is refused').toBe(true);
    });
  }

  it('reports by JSON Pointer through builtinConfigIssues, and knows no built-in named like an Object method', () => {
    expect(builtinConfigIssues('rate-limit', { nope: 1 } as never, '/interceptors/0/config').map((i) => i.path)).toContain('/interceptors/0/config/nope');
    expect(builtinConfigIssues('constructor', {} as never, '/x')).toEqual([]);
    expect(builtinConfigIssues('__proto__', {} as never, '/x')).toEqual([]);
  });
});
