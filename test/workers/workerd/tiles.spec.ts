// The tlog-tiles routes on the Worker inside workerd: the same createApp as Node, tiles read from
// the tenant's Durable Object through its `nodes` RPC, entry bundles through its `entries` RPC.
import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { concatBytes } from '../../../src/canonical/index.js';
import { hashLeaf } from '../../../src/log/index.js';
import { decodeEntryBundle } from '../../../src/log/tiles.js';
import { call } from './_worker-kit.js';

const get = async (path: string) => {
  const res = await SELF.fetch(`http://localhost/tlog/default/${path}`, { headers: { host: 'localhost', 'accept-encoding': 'identity' } });
  return { res, body: new Uint8Array(await res.arrayBuffer()) };
};

describe('tlog-tiles on the Worker', () => {
  it('serves the checkpoint, a partial level-0 tile and the matching entry bundle', async () => {
    for (let i = 0; i < 3; i++) {
      const r = await call('POST', '/v1/authorize', { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text: `tile ${i}` } } });
      expect(r.status).toBe(200);
    }
    const cp = await get('checkpoint');
    expect(cp.res.status).toBe(200);
    expect(cp.res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const size = Number(new TextDecoder().decode(cp.body).split('\n')[1]);
    expect(size).toBeGreaterThanOrEqual(3);
    const tile = await get(`tile/0/000.p/${size}`);
    expect(tile.res.status).toBe(200);
    expect(tile.body).toHaveLength(size * 32);
    const bundle = await get(`tile/entries/000.p/${size}`);
    expect(bundle.res.status).toBe(200);
    expect(concatBytes(...decodeEntryBundle(bundle.body).map(hashLeaf))).toEqual(tile.body);
    expect((await get(`tile/0/000.p/${size + 1}`)).res.status).toBe(404);
  });
});
