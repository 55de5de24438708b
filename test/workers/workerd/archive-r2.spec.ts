// The tile archive in R2 (VOUCH_ARCHIVE, docs/workers-archive.md): the tenant log object's alarm
// writes its log's tiles under `<tenant>/` in Node's archive layout, each once, byte for byte what
// the tiles routes serve. Read back from Miniflare's R2 and checked with the archive view and log
// verifier `vouch log verify` uses. The attacker can write the bucket (not the object's storage,
// not the keys): a changed tile, bundle or checkpoint is named by the read-back check; an object
// planted where the next tile goes is refused, reported and never overwritten.
import { env } from 'cloudflare:test';
import type { DurableObjectState } from '@cloudflare/workers-types/index.ts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_ARCHIVE_CHECKPOINT_BYTES, MAX_ARCHIVE_TILE_BYTES } from '../../../src/log/index.js';
import type { WorkerEnv } from '../../../src/worker/env.js';
import { deployObject, exportAndVerify, inObject, MINUTE, verifyOnNode } from './_object-deploy.js';

afterEach(() => vi.restoreAllMocks());

const bucket = env.ARCHIVE_TEST;

/** A deployment over the tenant's object storage (_object-deploy.ts), with the bucket bound or not. */
async function deploy(state: DurableObjectState, tenant: string, vars: Partial<WorkerEnv> = { VOUCH_ARCHIVE: bucket }) {
  const d = await deployObject(state, tenant, vars);
  return {
    ...d,
    /** `n` decisions, a few at a time (they share checkpoints, as under load). */
    decideMany: async (n: number) => {
      for (let i = 0; i < n; i += 25) expect(new Set(await Promise.all(Array.from({ length: Math.min(25, n - i) }, async (_, j) => (await d.decide(`d${i + j}`)).status)))).toEqual(new Set([200]));
    },
    tile: async (rel: string) => new Uint8Array(await (await d.fetch(`/tlog/${tenant}/${rel}`)).arrayBuffer()),
    check: async () => {
      const r = await d.object.checkArchive(tenant);
      if (!r.ok) throw new Error(JSON.stringify(r));
      return r.value;
    },
    status: async () => {
      const r = await d.object.archiveStatus(tenant);
      if (!r.ok) throw new Error(JSON.stringify(r));
      return r.value;
    },
  };
}

const object = async (key: string) => {
  const o = await bucket.get(key);
  return o ? new Uint8Array(await o.arrayBuffer()) : undefined;
};
const keysUnder = async (prefix: string) => (await bucket.list({ prefix })).objects.map((o: { key: string }) => o.key.slice(prefix.length)).sort();
const flipped = (b: Uint8Array, at: number) => {
  const c = b.slice();
  c[at] ^= 1;
  return c;
};

describe('the tile archive in R2 (VOUCH_ARCHIVE)', () => {
  it('the alarm writes full tiles, the edge and the checkpoint under <tenant>/, the tiles routes\' bytes; read back, they verify against the signed checkpoints; an exported bundle still verifies', async () => {
    const tenant = 'arch-a';
    await inObject(tenant, async (state) => {
      const d = await deploy(state, tenant);
      await d.decideMany(200);
      // Decided with nothing written to the bucket: the pass is the alarm's, ARCHIVE_DELAY_MS out.
      expect(await keysUnder(`${tenant}/`)).toEqual([]);
      const alarm = (await state.storage.getAlarm())! - Date.now();
      expect(alarm).toBeGreaterThan(0);
      expect(alarm).toBeLessThanOrEqual(MINUTE);
      await d.fire();
      const first = (await d.port.latestCheckpoint())!.size;
      expect(await keysUnder(`${tenant}/`)).toEqual(['checkpoint', `tile/0/000.p/${first}`, `tile/entries/000.p/${first}`]);

      // Past 256 entries: the full tiles, the new edge; the full tiles' partial versions are gone.
      await d.decideMany(100);
      await d.fire();
      const cp = (await d.port.latestCheckpoint())!;
      expect(cp.size).toBeGreaterThan(256);
      const edge = cp.size - 256;
      expect(await keysUnder(`${tenant}/`)).toEqual(['checkpoint', 'tile/0/000', `tile/0/001.p/${edge}`, 'tile/1/000.p/1', 'tile/entries/000', `tile/entries/001.p/${edge}`].sort());
      expect(new TextDecoder().decode(await object(`${tenant}/checkpoint`))).toBe(cp.note);
      for (const rel of ['tile/0/000', 'tile/entries/000', `tile/0/001.p/${edge}`, `tile/entries/001.p/${edge}`, 'tile/1/000.p/1']) expect(await object(`${tenant}/${rel}`), rel).toEqual(await d.tile(rel));
      const full = await bucket.head(`${tenant}/tile/0/000`);
      expect(full!.httpMetadata?.cacheControl).toContain('immutable');
      expect(await d.status()).toEqual({ size: cp.size, mismatches: 0, failures: 0 });

      // Read back through R2 and rebuilt with the archive view: every signed checkpoint verifies.
      const check = await d.check();
      expect(check.findings).toEqual([]);
      expect(check).toMatchObject({ size: cp.size, sealed: 256, root: Buffer.from(cp.root).toString('hex') });

      // More decisions, another pass: the new tiles and the new edge; nothing written twice.
      await d.decideMany(10);
      const put = vi.spyOn(bucket, 'put');
      await d.fire();
      const cp2 = (await d.port.latestCheckpoint())!;
      expect(put.mock.calls.map((c: unknown[]) => c[0] as string).sort()).toEqual([`${tenant}/checkpoint`, `${tenant}/tile/0/001.p/${cp2.size - 256}`, `${tenant}/tile/1/000.p/1`, `${tenant}/tile/entries/001.p/${cp2.size - 256}`].sort());
      expect((await d.check()).findings).toEqual([]);
      expect(await d.text('/metrics')).toContain(`vouch_archive_size{tenant="${tenant}"} ${cp2.size}`);

      // An exported bundle still verifies, in workerd and with `vouch verify` on Node.
      const bundle = await exportAndVerify(d);
      expect(bundle.report.findings).toEqual([]);
      expect(bundle.report.ok).toBe(true);
      const node = await verifyOnNode(bundle);
      expect(node.code, node.err).toBe(0);
    });
  }, 600_000);

  it('whoever can write the bucket: a changed hash tile, entry bundle or edge tile, a removed tile, another log\'s checkpoint are each named by the read-back check (ERR_ARCHIVE_MISMATCH)', async () => {
    const tenant = 'arch-b';
    const other = 'arch-b2';
    // Another tenant's log (its own origin), archived into the same bucket.
    await inObject(other, async (state) => {
      const d = await deploy(state, other);
      await d.decideMany(3);
      await d.fire();
    });
    await inObject(tenant, async (state) => {
      const d = await deploy(state, tenant);
      await d.decideMany(260);
      await d.fire();
      expect((await d.check()).findings).toEqual([]);
      const edge = (await d.port.latestCheckpoint())!.size - 256;
      const named = async (rel: string, tamper: (b: Uint8Array) => Promise<void>) => {
        const key = `${tenant}/${rel}`;
        const was = (await object(key))!;
        await tamper(was);
        const { findings } = await d.check();
        expect(findings.filter((f) => f.code === 'ERR_ARCHIVE_MISMATCH').map((f) => f.path), rel).toContain(rel);
        await bucket.put(key, was);
        expect((await d.check()).findings, `${rel} put back`).toEqual([]);
      };
      await named('tile/0/000', (b) => bucket.put(`${tenant}/tile/0/000`, flipped(b, 40)).then(() => {}));
      await named('tile/entries/000', (b) => bucket.put(`${tenant}/tile/entries/000`, flipped(b, b.length - 3)).then(() => {}));
      await named(`tile/entries/001.p/${edge}`, (b) => bucket.put(`${tenant}/tile/entries/001.p/${edge}`, flipped(b, 10)).then(() => {}));
      await named('tile/entries/000', () => bucket.delete(`${tenant}/tile/entries/000`));
      await named('checkpoint', async () => void (await bucket.put(`${tenant}/checkpoint`, (await object(`${other}/checkpoint`))!)));
      // A changed hash tile also fails the rebuild: the archived hashes do not give the signed roots.
      const was = (await object(`${tenant}/tile/0/000`))!;
      await bucket.put(`${tenant}/tile/0/000`, flipped(was, 7));
      const { findings } = await d.check();
      expect(findings.some((f) => f.code !== 'ERR_ARCHIVE_MISMATCH')).toBe(true);
      await bucket.put(`${tenant}/tile/0/000`, was);
    });
  }, 600_000);

  it('an object planted where the next tile goes: the pass is refused and reported (log line, /metrics), the object never overwritten, decisions go on; once it is deleted the next pass writes the tile', async () => {
    const tenant = 'arch-c';
    await inObject(tenant, async (state) => {
      const d = await deploy(state, tenant);
      await d.decideMany(3);
      const size = (await d.port.latestCheckpoint())!.size;
      const planted = new TextEncoder().encode('not the log');
      const key = `${tenant}/tile/entries/000.p/${size}`;
      await bucket.put(key, planted);
      const errors = vi.spyOn(console, 'error');
      await d.fire();
      expect(await object(key)).toEqual(planted);
      expect(await object(`${tenant}/checkpoint`)).toBeUndefined();
      const status = await d.status();
      expect(status).toMatchObject({ size: 0, mismatches: 1, failures: 0, error: expect.stringContaining(key) });
      const line = errors.mock.calls.map((c) => JSON.parse(String(c[0]))).find((l) => l.msg.startsWith('archive refused'));
      expect(line).toMatchObject({ level: 'error', tenant, code: 'ERR_ARCHIVE_MISMATCH' });
      expect(await d.text('/metrics')).toContain(`vouch_archive_mismatches_total{tenant="${tenant}"} 1`);
      // Retried after ARCHIVE_RETRY_MS, not at every commit; decisions go on meanwhile.
      expect((await state.storage.getAlarm())! - Date.now()).toBeGreaterThan(10 * MINUTE);
      expect((await d.decide('after')).status).toBe(200);
      expect((await state.storage.getAlarm())! - Date.now()).toBeGreaterThan(10 * MINUTE);

      // The operator compares and deletes the object: the next pass writes the log's bytes.
      await bucket.delete(key);
      await d.fire();
      const now = (await d.port.latestCheckpoint())!.size;
      expect(await d.status()).toEqual({ size: now, mismatches: 1, failures: 0 });
      expect(await object(`${tenant}/tile/entries/000.p/${now}`)).toEqual(await d.tile(`tile/entries/000.p/${now}`));
      expect((await d.check()).findings).toEqual([]);
    });
  });

  it('whoever can write the bucket plants objects larger than any tile or checkpoint: named by size, never read into the Worker\'s memory (a tile, the checkpoint, where the next tile goes)', async () => {
    const tenant = 'arch-big';
    const huge = new Uint8Array(MAX_ARCHIVE_TILE_BYTES + 1);
    await inObject(tenant, async (state) => {
      const d = await deploy(state, tenant);
      await d.decideMany(260);
      await d.fire();
      expect((await d.check()).findings).toEqual([]);
      // Every object body the Worker reads whole: none of the planted ones may be among them.
      const read: number[] = [];
      const get = bucket.get.bind(bucket);
      vi.spyOn(bucket, 'get').mockImplementation(async (...args: Parameters<typeof bucket.get>) => {
        const o = await get(...args);
        if (o && 'arrayBuffer' in o) {
          const whole = o.arrayBuffer.bind(o);
          o.arrayBuffer = async () => {
            read.push(o.size);
            return whole();
          };
        }
        return o;
      });
      for (const rel of ['tile/entries/000', 'tile/0/000', 'checkpoint']) {
        const key = `${tenant}/${rel}`;
        const was = (await object(key))!;
        await bucket.put(key, rel === 'checkpoint' ? new Uint8Array(MAX_ARCHIVE_CHECKPOINT_BYTES + 1) : huge);
        read.length = 0;
        const { findings } = await d.check();
        expect(findings.find((f) => f.path === rel), rel).toMatchObject({ code: 'ERR_ARCHIVE_MISMATCH', message: expect.stringContaining('larger than any archive file of its kind') });
        expect(Math.max(0, ...read), rel).toBeLessThanOrEqual(MAX_ARCHIVE_TILE_BYTES);
        await bucket.put(key, was);
        expect((await d.check()).findings, `${rel} put back`).toEqual([]);
      }
      // Planted where the next tile goes: the pass compares sizes and refuses it unread.
      await d.decideMany(3);
      const next = `${tenant}/tile/entries/001.p/${(await d.port.latestCheckpoint())!.size - 256}`;
      await bucket.put(next, huge);
      read.length = 0;
      vi.spyOn(console, 'error').mockImplementation(() => {});
      await d.fire();
      expect(await d.status()).toMatchObject({ mismatches: 1, error: expect.stringContaining(next) });
      expect(Math.max(0, ...read)).toBeLessThanOrEqual(MAX_ARCHIVE_TILE_BYTES);
      expect((await bucket.head(next))!.size).toBe(huge.length);
    });
  }, 600_000);

  it('without the binding: no archive job, nothing in the bucket, the check says how to bind it', async () => {
    const tenant = 'arch-off';
    await inObject(tenant, async (state) => {
      const d = await deploy(state, tenant, {});
      await d.decideMany(3);
      expect(await state.storage.getAlarm()).toBeNull();
      expect(await keysUnder(`${tenant}/`)).toEqual([]);
      expect(await d.object.archiveStatus(tenant)).toEqual({ ok: true, value: undefined });
      expect(await d.object.checkArchive(tenant)).toMatchObject({ ok: false, error: { code: 'ERR_CONFIG', message: expect.stringContaining('VOUCH_ARCHIVE') } });
    });
  });
});
