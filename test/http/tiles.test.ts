// The log served as C2SP tlog-tiles by a real server: checkpoint, full and partial hash tiles,
// entry bundles (gzip on request), with the spec's content types and cache headers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { concatBytes } from '../../src/canonical/index.js';
import { hashLeaf } from '../../src/log/index.js';
import { decodeEntryBundle } from '../../src/log/tiles.js';
import { get, post, testServer } from './_server.js';

let s: Awaited<ReturnType<typeof testServer>>;
let size: number;
const base = () => `${s.url}/tlog/default`;

beforeAll(async () => {
  s = await testServer();
  // Past one full tile: decisions through the service, in waves (a checkpoint per batch).
  while ((size = (await get(`${s.url}/v1/checkpoint`)).json.size) < 260) {
    await Promise.all(Array.from({ length: 60 }, (_, i) => post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: `t${i}` } } })));
  }
}, 120_000);
afterAll(async () => {
  await s?.close();
});

async function bytes(path: string, headers: Record<string, string> = {}): Promise<{ res: Response; body: Uint8Array }> {
  const res = await fetch(`${base()}/${path}`, { headers });
  return { res, body: new Uint8Array(await res.arrayBuffer()) };
}

describe('tlog-tiles', () => {
  it('serves the signed checkpoint as text, cached a few seconds at most', async () => {
    const res = await fetch(`${base()}/checkpoint`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('max-age=5');
    const note = await res.text();
    expect(note).toBe((await get(`${s.url}/v1/checkpoint`)).json.checkpoint);
    expect(note.split('\n')[1]).toBe(String(size));
  });

  it('serves a full level-0 tile (immutable) whose hashes are the leaf hashes of the entry bundle', async () => {
    const tile = await bytes('tile/0/000');
    expect(tile.res.status).toBe(200);
    expect(tile.res.headers.get('content-type')).toBe('application/octet-stream');
    expect(tile.res.headers.get('cache-control')).toBe('max-age=31536000, immutable');
    expect(tile.body).toHaveLength(8192);
    const bundle = await bytes('tile/entries/000', { 'accept-encoding': 'gzip' });
    expect(bundle.res.headers.get('content-encoding')).toBe('gzip'); // fetch inflates it
    expect(bundle.res.headers.get('cache-control')).toBe('max-age=31536000, immutable');
    const entries = decodeEntryBundle(bundle.body);
    expect(entries).toHaveLength(256);
    expect(concatBytes(...entries.map(hashLeaf))).toEqual(tile.body);
    const first = (await get(`${s.url}/v1/entries/0`)).json.entry;
    expect(JSON.parse(new TextDecoder().decode(entries[0]))).toEqual(first);
  });

  it('serves partial tiles of the signed size with a short cache, and uncompressed bundles on request', async () => {
    const w = size - 256;
    const tile = await bytes(`tile/0/001.p/${w}`);
    expect(tile.res.status).toBe(200);
    expect(tile.res.headers.get('cache-control')).toBe('max-age=60');
    expect(tile.body).toHaveLength(w * 32);
    const top = await bytes('tile/1/000.p/1');
    expect(top.res.status).toBe(200);
    expect(top.body).toHaveLength(32);
    const bundle = await bytes(`tile/entries/001.p/${w}`, { 'accept-encoding': 'identity' });
    expect(bundle.res.headers.get('content-encoding')).toBeNull();
    expect(concatBytes(...decodeEntryBundle(bundle.body).map(hashLeaf))).toEqual(tile.body);
  });

  it('answers 404 past the signed tree and 400 for paths that are not tlog-tiles paths', async () => {
    for (const p of ['tile/0/001', `tile/0/001.p/${size - 255}`, 'tile/1/000', 'tile/entries/002', 'tile/2/000.p/1']) {
      const r = await get(`${base()}/${p}`);
      expect([p, r.status, r.json.error?.code]).toEqual([p, 404, 'ERR_NOT_FOUND']);
    }
    for (const p of ['tile/0/0', 'tile/0/x000/000', 'tile/00/000', 'tile/0/000.p/256', 'tile/data/000']) {
      const r = await get(`${base()}/${p}`);
      expect([p, r.status, r.json.error?.code]).toEqual([p, 400, 'ERR_INPUT']);
    }
  });
});
