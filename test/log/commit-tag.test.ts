// Commit tags (log/commit-tag.ts): HMAC-SHA256 as RFC 2104 defines it (against node:crypto and
// RFC 4231 test case 2), bound to origin, size and root, and checked in constant time.
import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fromHex, toHex, utf8 } from '../../src/canonical/index.js';
import { commitKeyOf, commitTag, commitTagValid, hmacSha256 } from '../../src/log/commit-tag.js';

describe('commit tags', () => {
  it('hmacSha256 is HMAC-SHA256: RFC 4231 case 2, and node:crypto on random keys and messages', () => {
    expect(toHex(hmacSha256(utf8.encode('Jefe'), utf8.encode('what do ya want for nothing?')))).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
    for (let i = 0; i < 200; i++) {
      const key = randomBytes(i % 65);
      const msg = randomBytes((i * 37) % 300);
      expect(toHex(hmacSha256(key, msg))).toBe(createHmac('sha256', key).update(msg).digest('hex'));
    }
    expect(() => hmacSha256(new Uint8Array(65), new Uint8Array(1))).toThrow(RangeError);
  });

  it('a tag verifies for its own origin, size and root under its own key only', () => {
    const key = commitKeyOf(new Uint8Array(32).fill(1));
    const root = fromHex('ab'.repeat(32));
    const t = commitTag(key, 'vouch.local/default', 5, root);
    expect(commitTagValid(key, 'vouch.local/default', t, root)).toBe(true);
    expect(commitTagValid(key, 'vouch.local/other', t, root)).toBe(false);
    expect(commitTagValid(key, 'vouch.local/default', { ...t, size: 6 }, root)).toBe(false);
    expect(commitTagValid(key, 'vouch.local/default', t, fromHex('ac'.repeat(32)))).toBe(false);
    expect(commitTagValid(commitKeyOf(new Uint8Array(32).fill(2)), 'vouch.local/default', t, root)).toBe(false);
    expect(commitTagValid(key, 'vouch.local/default', { ...t, tag: t.tag.slice(0, 31) }, root)).toBe(false);
    // The commit key is not the seed.
    expect(toHex(commitKeyOf(new Uint8Array(32).fill(1)))).not.toBe(toHex(new Uint8Array(32).fill(1)));
  });
});
