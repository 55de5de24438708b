// Issue 35, attacker's pass 3 (fixed; the test plays it) on recorded labels (hostile caller of POST /v1/authorize). recordedLabel redacts
// first, then cuts at MAX_LABEL_CHARS. Detectors that need a boundary AFTER the credential
// (aws_access_key `(?![A-Z0-9])`, google_api_key, aws_secret_key) do not match a credential
// followed by one more token character; the cut then removes that character, and the label ends in
// the bare credential plus an ellipsis, which the same detector matches. So a real AWS key id is
// signed into the entry (the label is signed as is), and the label is not idempotent:
// recordedLabel(recordedLabel(x)) !== recordedLabel(x) (replay re-derives labels from what was
// recorded).
import { describe, expect, it, afterAll, beforeAll } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromBase64, utf8 } from '../../src/canonical/index.js';
import { findSecrets } from '../../src/interceptors/builtin/_patterns.js';
import { MAX_LABEL_CHARS, recordedLabel } from '../../src/interceptors/builtin/recorded-text.js';
import { replayLog } from '../../src/audit/index.js';
import { storeReplaySource } from '../../src/audit/node-bundle.js';
import { post, testServer, writeConfig } from '../http/_server.js';

const AWS = 'AKIAIOSFODNN7EXAMPLE'; // 20 chars
const GOOGLE = 'AIzaSyA1234567890abcdefghijklmnopqrstuv'; // AIza + 35
const AWS_SECRET = 'aws_secret_access_key=wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEYAB';

/** `secret` ends exactly at the cut; one more token character after it hides it from its detector. */
const atCut = (secret: string, extra: string) => 'x '.repeat(MAX_LABEL_CHARS).slice(0, MAX_LABEL_CHARS - secret.length - 1) + ' ' + secret + extra;

describe('a credential that ends exactly at the label cut', () => {
  it.each([
    ['an AWS access key id', AWS, 'Q'],
    ['a Google API key', GOOGLE, 'Q'],
    ['an AWS secret key next to its name', AWS_SECRET, 'Q'],
  ])('%s: the recorded label holds no credential the redactor finds, and a second pass changes nothing', (_what, secret, extra) => {
    const input = atCut(secret, extra);
    expect(Array.from(input).length).toBeGreaterThan(MAX_LABEL_CHARS);
    const label = recordedLabel(input);
    expect(findSecrets(label)).toEqual([]);
    expect(recordedLabel(label)).toBe(label);
  });
});

describe('end to end: a tool name whose server label is cut into an AWS key id', () => {
  let s: Awaited<ReturnType<typeof testServer>>;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-atk3-cut-'));
    s = await testServer({ config: writeConfig(dir, { version: 1, uncovered: [{ events: ['*'], phase: 'both' }], interceptors: [] }), idleCheckpointMs: 0 });
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  it('the signed entry holds no credential the redactor finds, and the log replays clean', async () => {
    // The server label (serverOf: the tool name as a recorded label, cut at 256) ends in the key id.
    const name = atCut(AWS, 'Q');
    const r = await post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name, arguments: {} } });
    expect(r.status).toBe(200);
    const text = utf8.decode(fromBase64(r.json.receipt.entry));
    const entry = JSON.parse(text);
    const report = await replayLog(storeReplaySource(s.dataDir.log('default').store as never));
    expect(findSecrets(text)).toEqual([]);
    expect(report.results.filter((x) => x.status !== 'match')).toEqual([]);
  });
});
