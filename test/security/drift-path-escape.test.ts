// Issue 35, attacker's pass 5 (fixed; the test plays it): drift paths are built from the executed
// payload's keys and JSON-Pointer-escaped (`/` -> `~1`) before they were redacted, so a URL with a
// login or an AWS secret key used as a key was signed into the execution entry. Segments are now
// recorded labels before they are escaped.
import { describe, expect, it } from 'vitest';
import { computeDrift } from '../../src/execution/drift.js';
import { driftRecord } from '../../src/execution/record.js';
import { findSecrets } from '../../src/interceptors/builtin/_patterns.js';
import { recordedJson } from '../../src/interceptors/builtin/recorded-text.js';

// record.ts signs recordedJson(driftRecord(drift)): drift paths are the executed payload's keys,
// escaped as JSON Pointer (/ -> ~1) BEFORE redaction, so a key credential with a '/' is not found.
describe('attack: drift paths are escaped before they are redacted', () => {
  it('a URL with userinfo as an executed key is signed with its password', () => {
    const key = 'https://admin:hunter2-Sup3rS3cret@db.internal';
    expect(findSecrets(key).length).toBe(1); // the redactor knows it as written
    const drift = computeDrift({ a: 1 }, { a: 1, [key]: 1 });
    const signed = JSON.stringify(recordedJson(driftRecord(drift)));
    expect(signed).not.toContain('hunter2-Sup3rS3cret');
  });
  it('an AWS secret key (base64 with /) as an executed key is signed unredacted', () => {
    const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
    const key = `aws_secret_access_key=${secret}`;
    expect(findSecrets(key).length).toBe(1);
    const drift = computeDrift({ a: 1 }, { a: 1, [key]: 1 });
    const signed = JSON.stringify(recordedJson(driftRecord(drift)));
    expect(signed).not.toContain('wJalrXUtnFEMI');
  });
});
