// The export core against a small log written straight through the Appender: the compact range
// of [0, from) it derives from an inclusion proof equals the stored one for every `from`, sizes
// declared up front equal the bytes written, and bad ranges throw before anything is written.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eraseStoredPayload, exportBundle, parsePayloadLine, parseRangeFile, planExport, type BundleSink, type ExportOptions } from '../../src/audit/index.js';
import { storeExportSource } from '../../src/audit/node-bundle.js';
import { canonicalBytes, digestBytes, utf8 } from '../../src/canonical/index.js';
import { compactRangeAt } from '../../src/log/index.js';
import { logPortOf } from '../../src/store/log-port.js';
import { initDataDir, openDataDir, type DataDir, type TenantLog } from '../../src/store/node.js';

let dd: DataDir;
let log: TenantLog;
const OPTS: ExportOptions = { payloads: true, keys: { vkeys: [], jwks: { keys: [] } }, tool: { name: 'vouch', version: 'test' } };

/** Keeps every file in memory and checks each one has exactly its declared size. */
function memorySink() {
  const files = new Map<string, string>();
  const sink: BundleSink = {
    async file(name, size, chunks) {
      const parts: Uint8Array[] = [];
      for await (const c of chunks) parts.push(c);
      const bytes = Buffer.concat(parts);
      if (bytes.length !== size) throw new Error(`${name}: declared ${size}, wrote ${bytes.length}`);
      files.set(name, bytes.toString('utf8'));
    },
  };
  return { sink, files };
}

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-export-'));
  initDataDir(dir);
  dd = await openDataDir(dir, { thread: false });
  log = dd.log('default');
  OPTS.keys.vkeys = dd.keys.map((k) => k.vkey);
  // Appends in concurrent groups: several checkpoints, with gaps between their sizes.
  let i = 0;
  for (let batch = 1; batch <= 7; batch++) {
    await Promise.all(
      Array.from({ length: batch }, () => {
        const payload = canonicalBytes({ name: 'echo', arguments: { n: i % 5 } });
        const digest = digestBytes(payload);
        return log.appender.append({ type: 'decision', time: '2026-01-01T00:00:00Z', seq_hint: i++, input: { digest } } as never, [{ digest, bytes: payload }]);
      }),
    );
  }
}, 60_000);

afterAll(async () => {
  await dd?.close();
});

describe('export', () => {
  it('derives the compact range of [0, from) exactly, for every from', async () => {
    const source = storeExportSource(log.store, log.origin);
    for (let from = 0; from <= 28; from++) {
      const { sink, files } = memorySink();
      await exportBundle(source, sink, { ...OPTS, from }, { ...(await planExport(source, { from })) });
      const r = parseRangeFile(JSON.parse(files.get('range.json')!));
      expect(r.range).toEqual(compactRangeAt(from, log.store));
      if (from > 0) expect(r.prevLeaf).toBe(Buffer.from(log.store.entry(from - 1)!.leaf).toString('hex'));
    }
  });

  it('uses the checkpoint at `to`, or the next one, and says so', async () => {
    const source = storeExportSource(log.store, log.origin);
    const sizes = [...log.store.checkpoints()].map((c) => c.size);
    const gap = sizes.findIndex((s, i) => i > 0 && s - sizes[i - 1] > 1);
    const [signed, next] = [sizes[gap - 1], sizes[gap]];
    expect(await planExport(source, { from: 0, to: signed })).toMatchObject({ from: 0, to: signed, notes: [] });
    expect(await planExport(source, { to: signed + 1 })).toMatchObject({ to: next, requested: { to: signed + 1 }, notes: [expect.stringContaining(`size ${signed + 1}`)] });
    await expect(planExport(source, { from: 5, to: 4 })).rejects.toMatchObject({ code: 'ERR_INPUT' });
    await expect(planExport(source, { to: 29 })).rejects.toMatchObject({ code: 'ERR_INPUT' });
  });

  it('marks erased payloads in payloads.jsonl with the erasure entry', async () => {
    const port = logPortOf(log.origin, log.store, log.appender);
    const digest = digestBytes(canonicalBytes({ name: 'echo', arguments: { n: 3 } }));
    const erased = await eraseStoredPayload(port, digest, { time: '2026-01-02T00:00:00Z', reason: 'request' });
    expect(erased.seq).toBe(28);
    const { sink, files } = memorySink();
    const m = await exportBundle(storeExportSource(log.store, log.origin), sink, { ...OPTS, to: 28 });
    const lines = files.get('payloads.jsonl')!.split('\n').filter(Boolean).map(parsePayloadLine);
    const marked = lines.filter((l) => 'erased' in l);
    expect(marked.length).toBe(m.counts.erased);
    expect(marked.every((l) => 'erased' in l && l.erased === 28 && l.digest === digest)).toBe(true);
    expect(m.counts.payloads + m.counts.erased).toBe(28);
    expect(utf8.encode(files.get('manifest.json')!).length).toBeGreaterThan(0);
  });

  it('refuses an empty log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-export-empty-'));
    initDataDir(dir);
    const d = await openDataDir(dir, { thread: false });
    try {
      const t = d.log('default');
      await expect(planExport(storeExportSource(t.store, t.origin), {})).rejects.toMatchObject({ code: 'ERR_NOT_FOUND' });
    } finally {
      await d.close();
    }
  });
});
