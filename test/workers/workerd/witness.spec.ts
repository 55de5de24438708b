// Witnessing on the Worker (issue 38): each tenant log object submits its checkpoints to the
// witnesses of VOUCH_WITNESSES from its alarm, keeps the cosignatures in its own storage and
// serves them as Node does (GET /v1/checkpoint, receipts, audit bundles); /metrics says how far
// each witness is behind and how often it failed. The witness is a real `vouch witness` on
// 127.0.0.1 (_witness-server.ts); a witness that is down is a loopback port nobody listens on.
// Each "deployment" is a VouchLog built over the tenant's object storage with the witness var set
// (key-rotation.spec.ts does the same with other secrets); `fire()` is what workerd does when the
// alarm is due (the interval is a minute, so the test object's own alarm never runs first).
import { env } from 'cloudflare:test';
import type { DurableObjectState } from '@cloudflare/workers-types/index.ts';
import { describe, expect, inject, it } from 'vitest';
import { buildWorkerApp } from '../../../src/worker/app.js';
import { createCosigner, formatCosignerVkey, parseCosignerVkeys, verifyWitnesses } from '../../../src/witness/index.js';
import { WORKER_CONFIG_DOCUMENT as configDocument } from './_config.js';
import { deployObject, exportAndVerify, inObject } from './_object-deploy.js';

const witness = inject('witness');
const witnessKeys = witness.vkeys.flatMap(parseCosignerVkeys);
/** A witness nobody runs: connections to it are refused. */
const DEAD = { url: 'http://127.0.0.1:9', vkeys: [formatCosignerVkey(createCosigner('dead.test/witness', 'Ed25519', new Uint8Array(32).fill(9)))] };

/** A deployment with this VOUCH_WITNESSES over the tenant's object storage (_object-deploy.ts). */
const deploy = (state: DurableObjectState, tenant: string, witnesses: unknown) => deployObject(state, tenant, { VOUCH_WITNESSES: JSON.stringify(witnesses) });

const metricLine = (text: string, name: string, tenant: string, w: string) => {
  const m = new RegExp(`^${name}\\{tenant="${tenant}",witness="${w.replace(/[./]/g, '\\$&')}"\\} (\\d+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
};

describe('witnessing from the tenant log object (VOUCH_WITNESSES)', () => {
  it("a real witness cosigns the log's checkpoints from the object's alarm, never on the decision path; checkpoints, receipts and bundles carry the cosignature", async () => {
    const tenant = 'wit-a';
    await inObject(tenant, async (state) => {
      const d = await deploy(state, tenant, { witnesses: [{ url: witness.url, vkeys: witness.vkeys }], timeoutMs: 5000, retries: 1, intervalMs: 60_000 });
      for (let i = 0; i < 3; i++) expect((await d.decide(`hello ${i}`)).status).toBe(200);
      // Decided and answered with no witness asked: nothing cosigned yet, a round is due.
      const before = await d.get('/v1/checkpoint');
      expect(before.witnessed).toBeNull();
      expect(verifyWitnesses(before.checkpoint, witnessKeys, 1).ok).toBe(false);
      expect(await state.storage.getAlarm()).not.toBeNull();

      await d.fire();
      const cp = await d.get('/v1/checkpoint');
      expect(cp.witnessed).toMatchObject({ size: cp.size, behind: 0, witnesses: [witness.name] });
      expect(verifyWitnesses(cp.checkpoint, witnessKeys, 1)).toMatchObject({ ok: true, witnesses: [witness.name] });
      // Caught up: no round pending until the next commit.
      expect(await state.storage.getAlarm()).toBeNull();

      // The log grows: the next round proves consistency from the size the witness cosigned.
      const { json: last } = await d.decide('hello again');
      expect(await state.storage.getAlarm()).not.toBeNull();
      await d.fire();
      const next = await d.get('/v1/checkpoint');
      expect(next.size).toBeGreaterThan(cp.size);
      expect(next.witnessed).toMatchObject({ size: next.size, behind: 0 });
      expect(verifyWitnesses(next.checkpoint, witnessKeys, 1).ok).toBe(true);

      // A receipt read back carries the witness's line.
      const seq = last.receipt?.entry?.seq ?? last.seq ?? next.size - 1;
      const { receipt } = await d.get(`/v1/entries/${seq}`);
      expect(verifyWitnesses(receipt.checkpoint, witnessKeys, 1).ok).toBe(true);

      // An audit bundle from the object: its checkpoint verifies with --min-witnesses 1.
      const { report } = await exportAndVerify(d, { witnesses: (note) => verifyWitnesses(note, witnessKeys, 1) });
      expect(report.findings).toEqual([]);
      expect(report.witnessCheck).toMatchObject({ ok: true });

      // /metrics: the witness caught up, no failure.
      const m = await d.text('/metrics');
      expect(metricLine(m, 'vouch_witness_cosigned_size', tenant, witness.name)).toBe(next.size);
      expect(metricLine(m, 'vouch_witness_behind_entries', tenant, witness.name)).toBe(0);
      expect(metricLine(m, 'vouch_witness_failures_total', tenant, witness.name)).toBe(0);
    });
  });

  it('a witness that is down costs no decision: counted in /metrics, its round comes back after the interval, the other witness cosigns', async () => {
    const tenant = 'wit-b';
    await inObject(tenant, async (state) => {
      const d = await deploy(state, tenant, { witnesses: [DEAD, { url: witness.url, vkeys: witness.vkeys }], timeoutMs: 1000, retries: 0, intervalMs: 60_000 });
      expect((await d.decide('one')).status).toBe(200);
      await d.fire();
      // The dead one failed: the object sets its alarm again for the interval, to retry.
      const alarm = await state.storage.getAlarm();
      expect(alarm).not.toBeNull();
      expect(alarm! - Date.now()).toBeGreaterThan(30_000);
      await d.fire();
      const cp = await d.get('/v1/checkpoint');
      expect(cp.witnessed).toMatchObject({ size: cp.size, witnesses: [witness.name] });
      const m = await d.text('/metrics');
      expect(metricLine(m, 'vouch_witness_failures_total', tenant, 'dead.test/witness')).toBe(2);
      expect(metricLine(m, 'vouch_witness_behind_entries', tenant, 'dead.test/witness')).toBe(cp.size);
      expect(metricLine(m, 'vouch_witness_failures_total', tenant, witness.name)).toBe(0);
      // And decisions go on while it stays down.
      expect((await d.decide('two')).status).toBe(200);
    });
  });

  it('a witness config that cannot be used stops the Worker with ERR_CONFIG naming the var', async () => {
    for (const bad of ['{not json', JSON.stringify({ witnesses: [{ url: 'ftp://w.test', vkeys: witness.vkeys }] }), JSON.stringify({ witnesses: [], extra: 1 })]) {
      await expect(buildWorkerApp({ ...env, VOUCH_WITNESSES: bad }, configDocument)).rejects.toMatchObject({ code: 'ERR_CONFIG', message: expect.stringContaining('VOUCH_WITNESSES') });
    }
  });
});
