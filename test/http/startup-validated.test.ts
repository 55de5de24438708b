// Start-up skips validating a policy set the log's newest `policy` entry says this Cedar version
// validated (validated-policy-sets.ts, policy/policy-set.ts). Only a consistent entry
// counts: one a file attacker edited is no evidence, and the policy is validated as usual.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../src/http/node-server.js';
import { validatedPolicySets } from '../../src/http/validated-policy-sets.js';
import { logPath } from '../../src/store/node.js';
import { flipEntryByte, openAsAttacker } from '../security/_file-attacker.js';

describe('policy sets validated before', () => {
  it('are the ones the logs record as activated by this engine; an edited entry is none', async () => {
    const data = join(mkdtempSync(join(tmpdir(), 'vouch-validated-')), 'data');
    expect(validatedPolicySets(data).size).toBe(0); // no log yet
    const s = await startServer({ data, port: 0, idleCheckpointMs: 0 });
    const digest = (await s.policyOf('default')).policyDigest;
    await s.close();
    expect([...validatedPolicySets(data)]).toEqual([digest]);

    // A second start uses it, and decides as the first did.
    const again = await startServer({ data, port: 0, idleCheckpointMs: 0 });
    try {
      expect((await again.policyOf('default')).policyDigest).toBe(digest);
    } finally {
      await again.close();
    }

    // The checkpoint's Ed25519 line re-signed by someone without the key (a byte of it changed):
    // the entry is still in the tree the note names, but the note is not ours.
    const db = openAsAttacker(logPath(data, 'default'));
    const cp = db.prepare('SELECT size, note FROM checkpoints ORDER BY size DESC LIMIT 1').get() as { size: number; note: string };
    const lines = cp.note.split('\n');
    const i = lines.findIndex((l) => l.startsWith('\u2014 ') && Buffer.from(l.split(' ')[2], 'base64').length === 4 + 64);
    const sig = Buffer.from(lines[i].split(' ')[2], 'base64');
    sig[10] ^= 1;
    lines[i] = `${lines[i].split(' ').slice(0, 2).join(' ')} ${sig.toString('base64')}`;
    db.prepare('UPDATE checkpoints SET note = ? WHERE size = ?').run(lines.join('\n'), cp.size);
    db.close();
    expect(validatedPolicySets(data).size).toBe(0);
  }, 60_000);

  it('an edited entry is none', async () => {
    const data = join(mkdtempSync(join(tmpdir(), 'vouch-validated-')), 'data');
    const s = await startServer({ data, port: 0, idleCheckpointMs: 0 });
    await s.policyOf('default'); // the log is open and the start-up policy recorded
    await s.close();
    expect(validatedPolicySets(data).size).toBe(1);
    flipEntryByte(logPath(data, 'default'), 0); // the start-up `policy` entry
    expect(validatedPolicySets(data).size).toBe(0);
  }, 60_000);
});
