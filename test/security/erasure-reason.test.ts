// Issue 35 item 1, found by an attacker's pass. Attacker: an admin erasing a payload because it held a credential,
// who quotes it in the reason (DELETE /v1/payloads/:digest?reason=...). The erasure entry is
// signed and can never be erased itself, yet its free-form `reason` is recorded verbatim
// (src/audit/erase.ts): the very secret being erased becomes permanent. Expected: the reason is
// a recorded label (credentials replaced by placeholders), like every other free-form field.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { utf8 } from '../../src/canonical/index.js';
import { post, testServer, writeConfig } from '../http/_server.js';

const PAT = `ghp_${'Zq9'.repeat(12)}`;
let s: Awaited<ReturnType<typeof testServer>>;
beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-atk-erase-'));
  s = await testServer({ config: writeConfig(dir, { version: 1, uncovered: [{ events: ['*'], phase: 'both' }], interceptors: [] }) });
}, 60_000);
afterAll(async () => {
  await s?.close();
});

it('the erasure reason does not make the erased credential permanent', async () => {
  const a = await post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { token: PAT } } });
  expect(a.status).toBe(200);
  const digest = a.json.inputDigest ?? JSON.parse(utf8.decode(Buffer.from(a.json.receipt.entry, 'base64'))).input.digest;
  const r = await fetch(`${s.url}/v1/payloads/${digest}?reason=${encodeURIComponent(`contained ${PAT}`)}`, { method: 'DELETE' });
  expect(r.status).toBe(200);
  const store = s.dataDir.log('default').store;
  const all = [...store.entries(0, store.size())].map((e: { bytes: Uint8Array }) => utf8.decode(e.bytes));
  const erasure = all.find((t) => t.includes('"type":"erasure"'));
  expect(erasure).toBeDefined();
  expect(erasure).not.toContain(PAT);
  expect(erasure).toContain('contained ');
  expect(all.filter((t) => t.includes(PAT))).toEqual([]); // no signed entry holds it
});
