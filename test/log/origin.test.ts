// Tenant names and log origins: one rule for Node's data directory, auth claims and the Worker.
import { describe, expect, it } from 'vitest';
import { assertTenant, isTenant, logOriginOf } from '../../src/log/index.js';

describe('tenant names and log origins', () => {
  it('accepts lower-case names of letters, digits, _ and - up to 63 characters', () => {
    for (const t of ['default', 'acme', 'a', '0-team_b', 'x'.repeat(63)]) expect(isTenant(t), t).toBe(true);
  });

  it('refuses what could escape a file name or a URL segment, or is not a string', () => {
    for (const t of ['', 'Acme', '-lead', '_lead', 'a/b', '../x', 'a.b', 'x'.repeat(64), ' a', 7, null, undefined]) expect(isTenant(t), String(t)).toBe(false);
    expect(() => assertTenant('../etc')).toThrow(expect.objectContaining({ code: 'ERR_CONFIG' }));
  });

  it('names a log <keyName>/<tenant>, refusing a bad tenant', () => {
    expect(logOriginOf('vouch.local', 'acme')).toBe('vouch.local/acme');
    expect(() => logOriginOf('vouch.local', 'a/b')).toThrow(expect.objectContaining({ code: 'ERR_CONFIG' }));
  });
});
