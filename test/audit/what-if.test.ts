// What-if: the stored inputs, recorded context and recorded state, against a candidate config.
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activatePolicy, type Activated } from '../../src/activate.js';
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

  it('does not guess where the candidate needs state that was never recorded', async () => {
    const c = await candidate((y) => y.replace('  - name: discovery', '  - name: rate2\n    use: rate-limit\n    config: { limit: 1 }\n  - name: discovery'));
    const r = await whatIf(source, c, { maxFlips: 3 });
    expect(r.byReason['candidate needs state that was not recorded']).toBeGreaterThan(0);
    expect(r.evaluated + r.unevaluable).toBe(r.decisions);
  });
});
