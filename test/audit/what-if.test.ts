// What-if: the stored inputs, recorded context and recorded state, against a candidate config.
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activatePolicy, type Activated } from '../../src/decide/index.js';
import { whatIf, type ReplaySource } from '../../src/audit/index.js';
import { storeReplaySource } from '../../src/audit/node-bundle.js';
import { createMemoryStateStores } from '../../src/interceptors/builtin/index.js';
import { decodeEntry } from '../../src/log/index.js';
import { loadConfigFile } from '../../src/policy/load-config.js';
import type { LogStore } from '../../src/store/index.js';
import { logPath, openSqliteStore } from '../../src/store/node.js';
import { FIXTURE_CONFIG, generateLog } from './_generate.js';

let store: LogStore;
let source: ReplaySource;
const candidates: Activated[] = [];

beforeAll(async () => {
  const g = await generateLog(180, { concurrency: 60 });
  await g.close();
  store = openSqliteStore(logPath(g.dir, 'default'), { readonly: true });
  source = storeReplaySource(store);
}, 120_000);

afterAll(async () => {
  store?.close();
  for (const c of candidates) await c.close();
});

/** The fixture config with text replaced, next to a copy of its Cedar file (edited too, if asked). */
async function candidate(edit: (yaml: string) => string, editPolicy: (cedar: string) => string = (c) => c): Promise<Activated> {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-candidate-'));
  const cedar = join(FIXTURE_CONFIG, '..', 'replay-policy.cedar');
  copyFileSync(cedar, join(dir, 'replay-policy.cedar'));
  writeFileSync(join(dir, 'replay-policy.cedar'), editPolicy(readFileSync(cedar, 'utf8')));
  writeFileSync(join(dir, 'c.yaml'), edit(readFileSync(FIXTURE_CONFIG, 'utf8')));
  const c = await activatePolicy(await loadConfigFile(join(dir, 'c.yaml')), { state: createMemoryStateStores(), remote: 'offline' });
  candidates.push(c);
  return c;
}

const recordedEffects = () => {
  const out = new Map<number, string>();
  for (const e of store.entries(0, store.size())) {
    const x = decodeEntry(e.bytes) as any;
    if (x.type === 'decision') out.set(x.seq, x.decision.effect);
  }
  return out;
};

describe('what-if', () => {
  it('the same config flips nothing', async () => {
    const r = await whatIf(source, await candidate((y) => y));
    expect(r).toMatchObject({ decisions: 180, evaluated: 180, unchanged: 180, allowToDeny: 0, denyToAllow: 0, unevaluable: 0, flips: [] });
  });

  it('a lower rate limit flips allowed calls to deny, decided from the recorded counts', async () => {
    const r = await whatIf(source, await candidate((y) => y.replace('limit: 5,', 'limit: 1,')));
    expect(r.allowToDeny).toBeGreaterThan(0);
    expect(r.denyToAllow).toBe(0);
    expect(r.flips.every((f) => f.from === 'allow' && f.to === 'deny' && f.event === 'tools/call' && f.abortedAt?.interceptor === 'rate')).toBe(true);
    expect(r.flips[0].abortedAt?.reason).toMatch(/^rate limit exceeded: \d+\/1 in window$/);
    expect(r.flips.length).toBe(r.allowToDeny);
    const effects = recordedEffects();
    for (const f of r.flips) expect(effects.get(f.seq)).toBe('allow');
  });

  it('a higher rate limit lets the rate-limited calls through', async () => {
    const r = await whatIf(source, await candidate((y) => y.replace('limit: 5,', 'limit: 1000,')));
    expect(r.denyToAllow).toBeGreaterThan(0);
    expect(r.allowToDeny).toBe(0);
    expect(r.flips.every((f) => f.to === 'allow' && f.event === 'tools/call')).toBe(true);
  });

  it('a policy change lists the decisions it would flip, both ways, with counts', async () => {
    const c = await candidate(
      (y) => y,
      (cedar) => cedar.replace('Tool::"send_mail", ', '').replace('@id("tools-forbid-dangerous")\nforbid(principal, action == Action::"tools/call", resource == Tool::"dangerous_tool");', 'permit(principal, action, resource == Tool::"dangerous_tool");'),
    );
    const r = await whatIf(source, c);
    expect(r.allowToDeny).toBeGreaterThan(0);
    expect(r.denyToAllow).toBeGreaterThan(0);
    expect(r.flips.filter((f) => f.from === 'allow').every((f) => f.resource === 'Tool::"send_mail"' && f.abortedAt?.interceptor === 'authz')).toBe(true);
    expect(new Set(r.flips.filter((f) => f.from === 'deny').map((f) => f.resource))).toEqual(new Set(['Tool::"dangerous_tool"']));
    expect(r.allowToDeny + r.denyToAllow + r.unchanged).toBe(r.evaluated);
  });

  it('names, for each flip, what decided before (from the entry) and what decides now, with Cedar policy ids', async () => {
    // deny -> allow: the forbid on dangerous_tool becomes a permit with an id of its own.
    const open = await whatIf(
      source,
      await candidate(
        (y) => y,
        (cedar) => cedar.replace('@id("tools-forbid-dangerous")\nforbid(principal, action == Action::"tools/call", resource == Tool::"dangerous_tool");', '@id("tools-allow-dangerous")\npermit(principal, action == Action::"tools/call", resource == Tool::"dangerous_tool");'),
      ),
    );
    expect(open.denyToAllow).toBeGreaterThan(0);
    expect(open.allowToDeny).toBe(0);
    expect(open.changed).toBe(true);
    for (const f of open.flips) {
      expect(f).toMatchObject({ from: 'deny', to: 'allow', resource: 'Tool::"dangerous_tool"' });
      expect(f.before).toEqual([{ interceptor: 'authz', policies: ['tools-forbid-dangerous'], message: 'denied by policy tools-forbid-dangerous' }]);
      expect(f.after).toEqual([{ interceptor: 'authz', policies: ['tools-allow-dangerous'], message: 'permitted by policy tools-allow-dangerous' }]);
    }
    // allow -> deny: send_mail leaves the allow-list, so Cedar denies by default (no policy determines it).
    const closed = await whatIf(source, await candidate((y) => y, (cedar) => cedar.replace('Tool::"send_mail", ', '')));
    expect(closed.allowToDeny).toBeGreaterThan(0);
    expect(closed.denyToAllow).toBe(0);
    for (const f of closed.flips) {
      expect(f).toMatchObject({ from: 'allow', to: 'deny', resource: 'Tool::"send_mail"' });
      expect(f.before).toEqual([{ interceptor: 'authz', policies: ['tools-allow'], message: 'permitted by policy tools-allow' }]);
      expect(f.after).toEqual([{ interceptor: 'authz', policies: [], message: 'denied by policy (default deny): no permit matched Tool::"send_mail"' }]);
    }
    // A flip decided by another interceptor names it and its message, and no policy ids.
    const rate = await whatIf(source, await candidate((y) => y.replace('limit: 5,', 'limit: 1,')));
    expect(rate.flips.length).toBeGreaterThan(0);
    for (const f of rate.flips) {
      expect(f.before.some((d) => d.interceptor === 'authz' && d.policies?.length === 1)).toBe(true);
      expect(f.after).toEqual([{ interceptor: 'rate', message: expect.stringMatching(/^rate limit exceeded: \d+\/1 in window$/) }]);
    }
  });

  it('several determining policies are all named, in one (sorted) order on every flip', async () => {
    const r = await whatIf(
      source,
      await candidate(
        (y) => y,
        (cedar) => cedar.replace('@id("tools-forbid-dangerous")\nforbid(principal, action == Action::"tools/call", resource == Tool::"dangerous_tool");', '@id("z-ops")\npermit(principal, action, resource == Tool::"dangerous_tool");\n@id("a-review")\npermit(principal, action == Action::"tools/call", resource);'),
      ),
    );
    const dangerous = r.flips.filter((f) => f.resource === 'Tool::"dangerous_tool"');
    expect(dangerous.length).toBeGreaterThan(1);
    for (const f of dangerous) expect(f.after).toEqual([{ interceptor: 'authz', policies: ['a-review', 'z-ops'], message: 'permitted by policy a-review, z-ops' }]);
  });

  it('a coverage change is explained as a decision of vouch itself, with the config that made it', async () => {
    // Without `uncovered`, answers no authorization interceptor covers are denied by default.
    const r = await whatIf(source, await candidate((y) => y.replace(/^uncovered:\n(?: .*\n)+/m, '')));
    expect(r.allowToDeny).toBeGreaterThan(0);
    expect(r.denyToAllow).toBe(0);
    for (const f of r.flips) {
      expect(f.event === 'tools/call' || f.event === 'tools/list').toBe(true);
      expect(f.before).toContainEqual({ interceptor: '(vouch)', message: 'no authorization interceptor covers this call; config `uncovered` allows it' });
      expect(f.after).toEqual([{ interceptor: '(vouch)', message: expect.stringMatching(/uncovered|authoriz/) }]);
      expect(f.abortedAt?.interceptor).toBe('(vouch)');
    }
  });

  it('does not guess where the candidate needs state that was never recorded', async () => {
    const c = await candidate((y) => y.replace('  - name: discovery', '  - name: rate2\n    use: rate-limit\n    config: { limit: 1 }\n  - name: discovery'));
    const r = await whatIf(source, c, { maxFlips: 3 });
    expect(r.byReason['candidate needs state that was not recorded']).toBeGreaterThan(0);
    expect(r.evaluated + r.unevaluable).toBe(r.decisions);
  });
});
