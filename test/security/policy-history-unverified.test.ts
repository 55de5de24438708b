// Issue 35, attacker's pass 3 (fixed; the test plays it) (file-level attacker: edits the SQLite file, no keys). `vouch policy history`
// opens the log with openVerifiedReadOnly (the newest checkpoint verified, entries after it cut
// off), but lists every policy entry read straight from the `entries` table: only the newest one
// (policyInForce / newestPolicyRecord) is checked to be a leaf of the signed tree. An older entry
// rewritten in place (its `by`, `chain`, `time`, or a decision entry turned into an activation) is
// listed as the signed record, with no problem named.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalBytes, utf8 } from '../../src/canonical/index.js';
import { startServer } from '../../src/http/node-server.js';
import { logPath } from '../../src/store/node.js';
import { runVouch } from '../helpers/cli.js';
import { post } from '../http/_server.js';
import { openAsAttacker } from '../security/_file-attacker.js';

const TENANT = 'default';

function rewrite(path: string, seq: number, change: (e: Record<string, any>) => void): void {
  const db = openAsAttacker(path);
  const row = db.prepare('SELECT bytes FROM entries WHERE seq = ?').get(seq) as { bytes: Buffer };
  const e = JSON.parse(utf8.decode(row.bytes));
  change(e);
  // Only the bytes: leaf hashes, nodes and checkpoints stay as signed.
  db.prepare('UPDATE entries SET bytes = ? WHERE seq = ?').run(canonicalBytes(e), seq);
  db.close();
}

describe('vouch policy history: entries before the newest are not checked against the signed tree', () => {
  it('must not list a rewritten older activation as recorded (refuse, or show what was signed)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-attack3-hist-'));
    const data = join(dir, 'data');
    writeFileSync(join(dir, 'permit.cedar'), 'permit(principal, action, resource);\n');
    writeFileSync(join(dir, 'permit.yaml'), 'version: 1\npolicies: { files: [permit.cedar] }\ninterceptors:\n  - { name: authz, use: cedar-policy }\n');
    writeFileSync(join(dir, 'strict.cedar'), 'permit(principal, action, resource) when { false };\n');
    writeFileSync(join(dir, 'strict.yaml'), 'version: 1\npolicies: { files: [strict.cedar] }\ninterceptors:\n  - { name: authz, use: cedar-policy }\n');
    const s = await startServer({ data, port: 0, idleCheckpointMs: 0 });
    expect((await post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: {} } })).status).toBe(200);
    await s.close();
    const permit = await runVouch('policy', 'activate', join(dir, 'permit.yaml'), '--data', data, '--json');
    const strict = await runVouch('policy', 'activate', join(dir, 'strict.yaml'), '--data', data, '--json');
    expect(strict.code).toBe(0);

    const before = await runVouch('policy', 'history', '--data', data, '--json');
    expect(before.code).toBe(0);
    const signed = before.json.activations.find((a: any) => a.seq === permit.json.seq);
    expect(signed.by).toMatch(/^cli:/);

    // Attacker: the older activation now says someone else did it, at another time, with another chain.
    rewrite(logPath(data, TENANT), permit.json.seq, (e) => {
      e.by = 'cli:mallory';
      e.time = '2020-01-01T00:00:00.000Z';
      e.chain = strict.json.chain;
    });

    const after = await runVouch('policy', 'history', '--data', data, '--json');
    if (after.code === 0) {
      const listed = after.json.activations.find((a: any) => a.seq === permit.json.seq);
      // What the signed log holds, not the attacker's bytes.
      expect(listed?.by).toBe(signed.by);
      expect(listed?.time).toBe(signed.time);
      expect(listed?.chain).toBe(signed.chain);
    }
  }, 180_000);
});
