// Attacker: someone who can append validly signed entries (an insider with the log key) and
// rewrites the target name an entry shows a reader ("echo" for a call to "delete_everything").
// Replay recomputes the target from the stored payload and reports the lie as a mismatch.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { activatePolicy, decide, recordActivation } from '../../src/decide/index.js';
import { replayLog } from '../../src/audit/index.js';
import { storeReplaySource } from '../../src/audit/node-bundle.js';
import { createMemoryStateStores } from '../../src/interceptors/builtin/index.js';
import { decodeEntry } from '../../src/log/index.js';
import { resolveConfigDocument } from '../../src/policy/index.js';
import { logPortOf } from '../../src/store/log-port.js';
import { initDataDir, logPath, openDataDir, openSqliteStore } from '../../src/store/node.js';

const CONFIG = {
  version: 1,
  policies: { inline: { policies: 'permit(principal, action, resource) unless { resource == Tool::"dangerous_tool" };' } },
  interceptors: [
    { name: 'pii', use: 'pii-redactor' },
    { name: 'authz', use: 'cedar-policy' },
  ],
};

describe('a rewritten target name', () => {
  it('replays to mismatch at /target; honest entries (allow, deny, redacted) match', async () => {
    const d = mkdtempSync(join(tmpdir(), 'vouch-target-'));
    initDataDir(d);
    const dd = await openDataDir(d, { thread: false });
    const t = dd.log('default');
    const policy = await activatePolicy(resolveConfigDocument(CONFIG as never), { state: createMemoryStateStores(), remote: 'offline' });
    const port = logPortOf(t.origin, t.store, t.appender);
    await recordActivation(port, t.store, policy, '2026-03-01T08:00:00Z');
    const ctx = { time: '2026-03-01T09:00:00Z', principal: 'alice', tenant: 'default' };
    const call = (name: string) => decide({ event: 'tools/call', phase: 'request', payload: { name, arguments: { to: 'bob@example.com' } }, context: ctx }, { policy, log: port });
    const allowed = await call('delete_everything');
    const denied = await call('dangerous_tool');
    const read = await decide({ event: 'resources/read', phase: 'request', payload: { uri: 'mailto:carol@example.com' }, context: ctx }, { policy, log: port });
    expect([allowed.effect, denied.effect]).toEqual(['allow', 'deny']);
    const bodies = [allowed, denied, read].map((o) => decodeEntry(o.appended.bytes) as Record<string, any>);
    expect(bodies.map((b) => b.target)).toEqual(['delete_everything', 'dangerous_tool', expect.any(String)]);
    // The resource URI is named as the redactor left it, whatever that was: never the raw address.
    expect(bodies[2].target).not.toContain('carol@example.com');
    const forge = async (b: Record<string, any>, target: string) => {
      const f = structuredClone(b);
      for (const k of ['v', 'log', 'seq', 'prev', 'heads']) delete f[k];
      f.target = target;
      return (await t.appender.append(f as never)).seq;
    };
    const lie1 = await forge(bodies[0], 'echo');
    const lie2 = await forge(bodies[1], 'harmless_tool');
    await dd.close();
    await policy.close();
    const s = openSqliteStore(logPath(d, 'default'), { readonly: true });
    try {
      const r = await replayLog(storeReplaySource(s));
      expect(r.match).toBe(3);
      expect(r.results).toEqual([
        expect.objectContaining({ seq: lie1, status: 'mismatch', paths: ['/target'] }),
        expect.objectContaining({ seq: lie2, status: 'mismatch', paths: ['/target'] }),
      ]);
    } finally {
      s.close();
    }
  });
});
