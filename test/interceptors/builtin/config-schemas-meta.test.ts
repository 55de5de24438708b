// The built-ins' config schemas are compiled at start-up without checking them against the JSON
// Schema 2020-12 meta-schema (that check cost most of start-up's schema time): it is done here.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { BUILTIN_CONFIG_SCHEMAS } from '../../../src/interceptors/builtin/_config-schemas.js';

describe('built-in config schemas', () => {
  const ajv = new Ajv2020({ allErrors: true, strict: true, validateFormats: false, logger: false });
  it.each(Object.keys(BUILTIN_CONFIG_SCHEMAS))('%s is a valid 2020-12 schema and compiles in strict mode', (use) => {
    const schema = BUILTIN_CONFIG_SCHEMAS[use];
    expect(ajv.validateSchema(schema), JSON.stringify(ajv.errors)).toBe(true);
    expect(() => ajv.compile(schema)).not.toThrow();
  });
});
