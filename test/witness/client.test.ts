// The log's witness client never follows a redirect (a witness that answers 3xx could send the
// checkpoint, and the cosignature lines it wants back, anywhere): on Node and in workerd alike the
// 3xx is an unavailable witness, retried like a 5xx, and the redirect target is never asked.
// (workerd has no redirect: 'error'; the client reads the 3xx itself: test/workers/workerd/witness.spec.ts.)
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postAddCheckpoint } from '../../src/witness/client.js';

let target: Server;
let redirector: Server;
let targetHits = 0;
const url = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;

beforeAll(async () => {
  target = createServer((_req, res) => {
    targetHits++;
    res.writeHead(200, { 'content-type': 'text/plain' }).end('\u2014 evil.example/witness AAAA\n');
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  redirector = createServer((_req, res) => res.writeHead(307, { location: `${url(target)}/add-checkpoint` }).end());
  await new Promise<void>((r) => redirector.listen(0, '127.0.0.1', r));
});

afterAll(async () => {
  await new Promise((r) => target.close(r));
  await new Promise((r) => redirector.close(r));
});

describe('postAddCheckpoint and redirects', () => {
  it('a witness that redirects is unavailable, and the redirect target is never asked', async () => {
    const a = await postAddCheckpoint(url(redirector), { oldSize: 0, proof: [], checkpoint: 'o\n1\nAAAA\n\n\u2014 o AAAA\n' }, 2000);
    expect(a).toEqual({ kind: 'unavailable', reason: expect.stringMatching(/HTTP 307: the witness redirected, and redirects are not followed/) });
    expect(targetHits).toBe(0);
  });
});
