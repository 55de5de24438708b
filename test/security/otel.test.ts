// Trace context is caller input: a hostile traceparent (malformed, oversized, injected, a "do not
// sample" flag to hide from the platform's traces) must neither reach the signed entry unchecked
// nor change a decision, and telemetry must not be a way to slow or fail one.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromBase64, utf8 } from '../../src/canonical/index.js';
import { parseTraceparent, traceparentOf } from '../../src/protocol/index.js';
import { post, testServer, writeConfig } from '../http/_server.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const T = '4bf92f3577b34da6a3ce929d0e0e4736';
const P = '00f067aa0ba902b7';

describe('parseTraceparent: only a valid W3C traceparent names a trace', () => {
  it.each([
    ['not a string', { traceId: T }],
    ['number', 42],
    ['too long', `00-${T}-${P}-01-${'x'.repeat(600)}`],
    ['version ff', `ff-${T}-${P}-01`],
    ['version 00 with extra fields', `00-${T}-${P}-01-extra`],
    ['all-zero trace id', `00-${'0'.repeat(32)}-${P}-01`],
    ['all-zero parent id', `00-${T}-${'0'.repeat(16)}-01`],
    ['short trace id', `00-${T.slice(2)}-${P}-01`],
    ['non-hex', `00-${T.replace('4', 'g')}-${P}-01`],
    ['header injection', `00-${T}-${P}-01\r\nx-evil: 1`],
    ['JSON injection', `00-${T}-${P}-01","effect":"allow`],
  ])('%s is ignored', (_what, v) => {
    expect(parseTraceparent(v)).toBeUndefined();
  });

  it('normalizes case and keeps the flags; a later version keeps only the four known fields', () => {
    expect(parseTraceparent(`00-${T.toUpperCase()}-${P}-01`)).toEqual({ traceId: T, spanId: P, flags: 1, header: `00-${T}-${P}-01` });
    expect(parseTraceparent(`01-${T}-${P}-00-future`)).toEqual({ traceId: T, spanId: P, flags: 0, header: `00-${T}-${P}-00` });
  });

  it('the message (_meta) wins over the transport (HTTP header); an invalid _meta one falls back to the header', () => {
    expect(traceparentOf({ traceparent: `00-${T}-${P}-01` }, `00-${'a'.repeat(32)}-${P}-01`)?.traceId).toBe(T);
    expect(traceparentOf({ traceparent: 'garbage' }, `00-${'a'.repeat(32)}-${P}-01`)?.traceId).toBe('a'.repeat(32));
  });
});

describe('a hostile traceparent through a real server', () => {
  let s: Awaited<ReturnType<typeof testServer>>;
  let hang: ReturnType<typeof createServer>;
  beforeAll(async () => {
    // A collector that accepts the connection and never answers: exports must not hold decisions.
    hang = createServer(() => undefined);
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', () => r()));
    const dir = mkdtempSync(join(tmpdir(), 'vouch-sec-otel-'));
    const config = writeConfig(dir, { version: 1, uncovered: [{ events: ['tools/call'], phase: 'both' }], interceptors: [] });
    s = await testServer({ config, otlp: `http://127.0.0.1:${(hang.address() as AddressInfo).port}` });
  });
  afterAll(async () => {
    await s?.close();
    hang.closeAllConnections();
    await new Promise<void>((r) => hang.close(() => r()));
  });

  it('a malformed or injected traceparent is not recorded and changes nothing; a hanging collector does not slow decisions', async () => {
    const t0 = Date.now();
    for (const tp of ['garbage', `00-${T}-${P}-01","effect":"deny`, `00-${'0'.repeat(32)}-${P}-01`]) {
      const r = await post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'x', arguments: {} }, _meta: { traceparent: tp } });
      expect(r.json.effect).toBe('allow');
      const entry = JSON.parse(utf8.decode(fromBase64(r.json.receipt.entry)));
      expect(entry.traceparent).toBeUndefined();
      expect(entry.trace).toBeUndefined();
    }
    // A _meta.traceparent that is not a string is ignored too (not a 400: it is only context).
    const r = await post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'x', arguments: {} }, _meta: { traceparent: { traceId: T } } }, { traceparent: `00-${T}-${P}-01` });
    expect(r.json.effect).toBe('allow');
    // The _meta value was present (an object), so the header was not copied in: nothing recorded.
    expect(JSON.parse(utf8.decode(fromBase64(r.json.receipt.entry))).traceparent).toBeUndefined();
    expect(Date.now() - t0).toBeLessThan(5000);
  }, 30_000);

  it('a hostile tracestate: injected, oversized or a credential in a value is ignored, bounded or redacted before it is signed', async () => {
    const decideWith = async (tracestate: unknown) => {
      const r = await post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'x', arguments: {} }, _meta: { traceparent: `00-${T}-${P}-01`, tracestate } });
      expect(r.json.effect).toBe('allow'); // trace context never decides
      return JSON.parse(utf8.decode(fromBase64(r.json.receipt.entry)));
    };
    for (const bad of ['k=1","effect":"deny', 'k=1\r\nx-evil: 1', { k: 1 }, 'K=upper']) {
      const e = await decideWith(bad);
      expect(e.traceparent).toBe(`00-${T}-${P}-01`);
      expect(e.tracestate, JSON.stringify(bad)).toBeUndefined();
    }
    const huge = Array.from({ length: 32 }, (_, i) => `k${i}=${'v'.repeat(250)}`).join(',');
    expect((await decideWith(huge)).tracestate).toBeUndefined(); // every member over 128: none kept
    const aws = ['AKIA', '5MZXN8QRF3WBY6OE'].join('');
    const e = await decideWith(`vendor=${aws}`);
    expect(JSON.stringify(e)).not.toContain(aws);
    expect(e.tracestate).toMatch(/^vendor=\S+$/);
  });
});
