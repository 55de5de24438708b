// Payload retention on the Worker (VOUCH_RETENTION, docs/retention.md): the tenant log object's
// alarm runs Node's retention pass over its own log, never on the decision path, and shares that
// alarm with witnessing. Decisions are made, the alarm fired as workerd fires it when due (as in
// witness.spec.ts: the first pass is a minute out, so the object's own alarm never runs first),
// and the log exported from the object verifies and replays with the old decisions "payload erased",
// inside workerd and on Node (`vouch verify`, _node-verifier.ts).
import { env } from 'cloudflare:test';
import type { DurableObjectState } from '@cloudflare/workers-types/index.ts';
import { payloadDigestsOf } from '../../../src/log/activation-check.js';
import { decodeEntry, type Entry } from '../../../src/log/index.js';
import { describe, expect, inject, it } from 'vitest';
import { buildWorkerApp } from '../../../src/worker/app.js';
import type { WorkerEnv } from '../../../src/worker/env.js';
import { parseCosignerVkeys, verifyWitnesses } from '../../../src/witness/index.js';
import { WORKER_CONFIG_DOCUMENT as configDocument } from './_config.js';
import { deployObject, exportAndVerify, inObject, MINUTE, verifyOnNode } from './_object-deploy.js';

/** A deployment with these vars over the tenant's object storage (_object-deploy.ts), and its log's entries. */
async function deploy(state: DurableObjectState, tenant: string, vars: Partial<WorkerEnv>) {
  const d = await deployObject(state, tenant, vars);
  return {
    ...d,
    entries: async (): Promise<Entry[]> => {
      const out: Entry[] = [];
      for (let i = 0, n = await d.port.size(); i < n; i++) out.push(decodeEntry((await d.port.entry(i))!));
      return out;
    },
  };
}

describe('payload retention from the tenant log object (VOUCH_RETENTION)', () => {
  it('a pass from the alarm erases expired payloads under signed erasure entries; the exported log verifies and replays them as "payload erased"', async () => {
    const tenant = 'ret-a';
    await inObject(tenant, async (state) => {
      const d = await deploy(state, tenant, { VOUCH_RETENTION: JSON.stringify({ payloadDays: 0, everyMinutes: 30 }) });
      for (let i = 0; i < 3; i++) expect((await d.decide(`secret ${i}`)).status).toBe(200);
      const before = await d.entries();
      const named = [...new Set(before.flatMap((e) => payloadDigestsOf(e)))];
      expect(named.length).toBeGreaterThanOrEqual(3);
      for (const p of named) expect(await d.port.payload(p)).toBeDefined();
      // Decided and answered with no pass run: nothing erased, the pass is due a minute out.
      expect(before.some((e) => e.type === 'erasure')).toBe(false);
      const alarm = await state.storage.getAlarm();
      expect(alarm! - Date.now()).toBeGreaterThan(MINUTE / 2);

      await d.fire();
      const after = await d.entries();
      const erasures = after.slice(before.length);
      expect(erasures.length).toBeGreaterThan(0);
      const listed = erasures.flatMap((e) => {
        expect(e).toMatchObject({ type: 'erasure', by: 'operator:retention', before: before.length, reason: expect.stringContaining('retention') });
        return e.digests as string[];
      });
      expect(listed.sort()).toEqual([...named].sort());
      for (const p of named) expect(await d.port.payload(p)).toBeUndefined();
      // The next pass everyMinutes later.
      expect((await state.storage.getAlarm())! - Date.now()).toBeGreaterThan(29 * MINUTE);

      // A decision after the pass keeps its payload (the next pass is not due).
      expect((await d.decide('kept')).status).toBe(200);
      const kept = payloadDigestsOf((await d.entries()).at(-1)!);
      for (const p of kept) expect(await d.port.payload(p)).toBeDefined();

      // The erasure entries are signed like any other: the bundle's checkpoint covers them, and
      // the old decisions replay as erased, never as missing.
      const bundle = await exportAndVerify(d);
      const { manifest, report } = bundle;
      expect(manifest.range.to).toBe(after.length + 1);
      expect(report.findings).toEqual([]);
      expect(report.ok).toBe(true);
      expect(report.replay).toMatchObject({ mismatch: 0, byReason: { 'payload erased': 3 } });
      expect(report.replay!.byReason['payload missing']).toBeUndefined();
      expect(report.notes).toContain('3 decision(s) not replayed: payload erased');

      // And on Node: the same bundle, written out and checked by `vouch verify` (Node's Cedar build).
      const node = await verifyOnNode(bundle);
      expect(node.code, node.err).toBe(0);
      expect(JSON.parse(node.out)).toMatchObject({ ok: true, findings: [], replay: { mismatch: 0, byReason: { 'payload erased': 3 } } });
    });
  });

  it('a tenant held with null keeps its payloads', async () => {
    const tenant = 'ret-hold';
    await inObject(tenant, async (state) => {
      const d = await deploy(state, tenant, { VOUCH_RETENTION: JSON.stringify({ payloadDays: 0, tenants: { [tenant]: null } }) });
      expect((await d.decide('held')).status).toBe(200);
      const before = await d.entries();
      await d.fire();
      expect((await d.entries()).length).toBe(before.length);
      for (const p of before.flatMap((e) => payloadDigestsOf(e))) expect(await d.port.payload(p)).toBeDefined();
    });
  });

  it('shares the alarm with witnessing: the witness round pending survives a retention pass, and then cosigns its erasure entries', async () => {
    const witness = inject('witness');
    const tenant = 'wit-c';
    await inObject(tenant, async (state) => {
      const d = await deploy(state, tenant, {
        VOUCH_RETENTION: JSON.stringify({ payloadDays: 0 }),
        VOUCH_WITNESSES: JSON.stringify({ witnesses: [{ url: witness.url, vkeys: witness.vkeys }], timeoutMs: 5000, retries: 1, intervalMs: 5 * MINUTE }),
      });
      expect((await d.decide('one')).status).toBe(200);
      // Retention (a minute out) comes first; the witness round (five) waits behind it.
      expect((await state.storage.getAlarm())! - Date.now()).toBeLessThan(2 * MINUTE);
      await d.fire();
      // The alarm's witness round ran before the pass; the erasure entries are not cosigned yet.
      const entries = await d.entries();
      expect(entries.some((e) => e.type === 'erasure')).toBe(true);
      expect((await d.get('/v1/checkpoint')).witnessed.size).toBeLessThan(entries.length);
      const next = (await state.storage.getAlarm())! - Date.now();
      expect(next).toBeGreaterThan(2 * MINUTE);
      expect(next).toBeLessThan(6 * MINUTE);
      await d.fire();
      const cp = await d.get('/v1/checkpoint');
      expect(cp.size).toBe((await d.entries()).length);
      expect(cp.witnessed).toMatchObject({ size: cp.size, behind: 0, witnesses: [witness.name] });
      expect(verifyWitnesses(cp.checkpoint, witness.vkeys.flatMap(parseCosignerVkeys), 1).ok).toBe(true);
      // Only the retention pass waits now, everyMinutes (60) out.
      expect((await state.storage.getAlarm())! - Date.now()).toBeGreaterThan(50 * MINUTE);
    });
  });

  it('a retention policy that cannot be used stops the Worker with ERR_CONFIG naming the var and the member', async () => {
    for (const [bad, member] of [['{not json', 'not JSON'], [JSON.stringify({ payloadDays: -1 }), '/payloadDays'], [JSON.stringify({ payloadDays: 180, keep: 1 }), '/keep'], [JSON.stringify({ everyMinutes: 0 }), '/everyMinutes'], ['[]', 'JSON object']]) {
      await expect(buildWorkerApp({ ...env, VOUCH_RETENTION: bad }, configDocument)).rejects.toMatchObject({ code: 'ERR_CONFIG', message: expect.stringMatching(new RegExp(`VOUCH_RETENTION.*${member.replace('/', '\\/')}`)) });
    }
  });
});
