// Issue 35, variants found by an attacker's pass: state read against the newest checkpoint ROW
// (its note parsed, not verified) or against entries after it (unsigned: anyone who can write the
// file can add some). The file-level attacker (no key) hides a revocation behind an unverified
// checkpoint row or an unsigned tail entry whose heads name fewer key entries, or makes an older
// activation look newest. Every reader of committed state now takes only what a verified
// signature covers: the published key set (503), `vouch keys list`, `vouch policy status/history`.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../src/http/node-server.js';
import { logPath } from '../../src/store/node.js';
import { runVouch } from '../helpers/cli.js';
import { get, post } from '../http/_server.js';
import { hideFromIndex } from '../security/_file-attacker.js';
import { appendWithHeads } from './_forge-checkpoint.js';

const TENANT = 'default';
const authorize = (url: string, name: string) => post(`${url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name, arguments: {} } });

const vouch = runVouch;

/** A log with a rotation and a revocation of the old ML-DSA-65 key after size 1. */
async function revokedLog(): Promise<{ data: string; rotateSeq: number; revokeSeq: number }> {
  const data = join(mkdtempSync(join(tmpdir(), 'vouch-attack-keys-')), 'data');
  const s1 = await startServer({ data, port: 0, idleCheckpointMs: 0 });
  await authorize(s1.url, 'echo');
  await authorize(s1.url, 'echo');
  await s1.close();
  const rot = await vouch('keys', 'rotate', '--data', data, '--json');
  expect(rot.code).toBe(0);
  const old = (await vouch('keys', 'list', '--data', data, '--json')).json.logs[0].keys.find((k: any) => k.to !== undefined && k.alg === 'ML-DSA-65');
  const revoked = await vouch('keys', 'revoke', old.keyId, '--after', '1', '--data', data, '--json');
  expect(revoked.code).toBe(0);
  return { data, rotateSeq: rot.json.logs[0].seq, revokeSeq: revoked.json.seq };
}

describe('published key set: a revocation hidden behind an unsigned checkpoint row', () => {
  it('GET /.well-known/vouch/keys must not publish the revoked key without revokedAfter', async () => {
    const { data, rotateSeq, revokeSeq } = await revokedLog();
    // Attacker: hide the revoke row from entries_key, append one decision-like entry whose heads
    // name only the rotation, and insert a checkpoint row over it with copied (invalid) signature lines.
    hideFromIndex(logPath(data, TENANT), 'entries_key', [revokeSeq]);
    appendWithHeads(logPath(data, TENANT), (h) => ({ ...h, key: [1, rotateSeq] }), { checkpoint: true });

    const s = await startServer({ data, port: 0, idleCheckpointMs: 0 });
    try {
      // The log itself is refused (its newest note does not verify): decisions fail...
      const r = await authorize(s.url, 'echo');
      expect(r.status).toBe(503);
      // ...but the key set is published from the forged state: the revoked key without its revocation.
      const keys = await get(`${s.url}/.well-known/vouch/keys`);
      const vkeys = await get(`${s.url}/.well-known/vouch/vkeys`);
      // The README's threat model: 503 rather than keys without a revocation.
      expect(keys.status).toBe(503);
      expect(keys.json.error.code).toBe('ERR_STORE_INCONSISTENT');
      expect(vkeys.status).toBe(503);
    } finally {
      await s.close();
    }
  }, 180_000);
});

describe('vouch keys list: a revocation hidden by an unsigned tail entry', () => {
  it('must report the revocation (or a problem), not a clean history', async () => {
    const { data, rotateSeq, revokeSeq } = await revokedLog();
    hideFromIndex(logPath(data, TENANT), 'entries_key', [revokeSeq]);
    appendWithHeads(logPath(data, TENANT), (h) => ({ ...h, key: [1, rotateSeq] })); // no checkpoint row: an "unsigned tail"
    const l = await vouch('keys', 'list', '--data', data, '--json');
    console.log('keys list', l.code, JSON.stringify(l.json));
    const revoked = l.json.logs[0].keys.some((k: any) => k.revokedAfter !== undefined);
    expect(revoked || l.json.logs[0].problems.length > 0).toBe(true);
  }, 180_000);
});

describe('vouch policy status: an older policy named by a forged tail entry', () => {
  it('must name the newest activation (or refuse), not the one the forged heads name', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-attack-policy-'));
    const data = join(dir, 'data');
    writeFileSync(join(dir, 'permit.cedar'), 'permit(principal, action, resource);\n');
    writeFileSync(join(dir, 'permit.yaml'), 'version: 1\npolicies: { files: [permit.cedar] }\ninterceptors:\n  - { name: authz, use: cedar-policy }\n');
    writeFileSync(join(dir, 'strict.cedar'), 'permit(principal, action, resource) when { false };\n');
    writeFileSync(join(dir, 'strict.yaml'), 'version: 1\npolicies: { files: [strict.cedar] }\ninterceptors:\n  - { name: authz, use: cedar-policy }\n');
    const s = await startServer({ data, port: 0, idleCheckpointMs: 0 });
    expect((await authorize(s.url, 'echo')).status).toBe(200);
    await s.close();
    const permit = await vouch('policy', 'activate', join(dir, 'permit.yaml'), '--data', data, '--json');
    const strict = await vouch('policy', 'activate', join(dir, 'strict.yaml'), '--data', data, '--json');
    expect(strict.code).toBe(0);
    appendWithHeads(logPath(data, TENANT), (h) => ({ ...h, policy: [h.policy[0] - 1, permit.json.seq] }));
    const st = await vouch('policy', 'status', '--data', data, '--json');
    console.log('policy status', st.code, JSON.stringify(st.json), st.out.slice(0, 300));
    expect(st.code === 0 ? st.json.active.chain : strict.json.chain).toBe(strict.json.chain);
  }, 180_000);
});
