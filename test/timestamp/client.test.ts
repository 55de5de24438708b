// A hostile TSA on the network answers the request: with a body far larger than any reply, or one
// byte at a time past the deadline. Each is refused with ERR_TSA within the request's bound, and the
// client stops reading at the size cap (it never buffers what the TSA chooses to send).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { requestTimestamp } from '../../src/timestamp/client.js';

const note = new TextEncoder().encode('vouch.local/default\n5\nq2r7J0t0mQd3Kq3yN6r8D6D6QmYgXbJ8J7r0k8i7c2E=\n');

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((ok) => (server ? server.close(() => ok()) : ok()));
  server = undefined;
});

/** A TSA whose reply body is written by `body` (headers first, 200, no content-length). */
async function hostileTsa(body: (res: import('node:http').ServerResponse, sent: { bytes: number }) => void, sent: { bytes: number }): Promise<string> {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/timestamp-reply' });
      res.flushHeaders();
      body(res, sent);
    });
  });
  await new Promise<void>((ok) => server!.listen(0, '127.0.0.1', ok));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/tsa`;
}

describe('a hostile TSA (requestTimestamp)', () => {
  it('a reply that never ends is cut at the 64 KiB cap: ERR_TSA, long before the timeout, at most a few hundred KiB read', async () => {
    const sent = { bytes: 0 };
    const chunk = Buffer.alloc(64 * 1024, 0x30);
    const url = await hostileTsa((res, s) => {
      // Keep writing as fast as the client takes it, until the connection goes.
      const pump = () => {
        while (!res.destroyed && s.bytes < 512 * 1024 * 1024) {
          s.bytes += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      res.on('close', () => undefined);
      pump();
    }, sent);
    const t0 = performance.now();
    const err = await requestTimestamp(url, note, 8000).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'ERR_TSA', message: expect.stringMatching(/larger than 65536 bytes/) });
    expect(performance.now() - t0).toBeLessThan(4000);
    // What the client let through its socket is bounded by the cap plus the kernel's buffers, not by the TSA.
    expect(sent.bytes).toBeLessThan(32 * 1024 * 1024);
  }, 20_000);

  it('a reply trickled past the deadline: ERR_TSA naming the deadline, not an uncoded abort', async () => {
    const url = await hostileTsa((res) => {
      const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write(Buffer.of(0x30))), 50);
    }, { bytes: 0 });
    const t0 = performance.now();
    const err = await requestTimestamp(url, note, 500).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'ERR_TSA', message: expect.stringMatching(/no answer in 500 ms/) });
    expect(performance.now() - t0).toBeLessThan(3000);
  });

  it('a content-length over the cap is refused before any body is read', async () => {
    const url = await hostileTsa((res) => res.end(), { bytes: 0 });
    server!.removeAllListeners('request');
    server!.on('request', (req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/timestamp-reply', 'content-length': String(1 << 30) });
        res.flushHeaders();
      });
    });
    const err = await requestTimestamp(url, note, 5000).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'ERR_TSA', message: expect.stringMatching(/larger than 65536 bytes/) });
  });
});
