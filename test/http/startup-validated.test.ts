// Start-up skips validating a policy set the log's newest `policy` entry says this Cedar version
// validated (node-server.ts validatedPolicySets, policy/policy-set.ts). Only a consistent entry
// counts: one a file attacker edited is no evidence, and the policy is validated as usual.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServer, validatedPolicySets } from '../../src/http/node-server.js';
import { logPath } from '../../src/store/node.js';
import { flipEntryByte } from '../security/_file-attacker.js';

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

    flipEntryByte(logPath(data, 'default'), 0); // the start-up `policy` entry
    expect(validatedPolicySets(data).size).toBe(0);
  }, 60_000);
});
