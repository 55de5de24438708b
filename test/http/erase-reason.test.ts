// DELETE /v1/payloads/:digest takes its reason as `?reason=` or in a JSON body {"reason"}: the
// recorded erasure entry holds it either way; a body that is not JSON, has other fields, or
// contradicts the query is refused and nothing is erased.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post, testServer } from './_server.js';

let s: Awaited<ReturnType<typeof testServer>>;
beforeAll(async () => {
  s = await testServer();
});
afterAll(() => s?.close());

/** A fresh decision whose input payload is stored by digest. */
async function storedDigest(text: string): Promise<string> {
  const r = await post(`${s.url}/v1/authorize`, { event: 'tools/call', phase: 'request', payload: { name: 'echo', arguments: { text } } });
  return (await get(`${s.url}/v1/entries/${r.json.seq}`)).json.entry.input.digest as string;
}
const erase = (digest: string, init: { query?: string; body?: string; type?: string } = {}) =>
  fetch(`${s.url}/v1/payloads/${digest}${init.query ? `?reason=${encodeURIComponent(init.query)}` : ''}`, {
    method: 'DELETE',
    ...(init.body !== undefined && { body: init.body, headers: { 'content-type': init.type ?? 'application/json' } }),
  }).then(async (r) => ({ status: r.status, json: (await r.json()) as any }));
const entry = async (seq: number) => (await get(`${s.url}/v1/entries/${seq}`)).json.entry;

describe('erasure reason', () => {
  it('in the JSON body: recorded in the erasure entry', async () => {
    const digest = await storedDigest('body reason');
    const r = await erase(digest, { body: JSON.stringify({ reason: 'GDPR art. 17 request #42' }) });
    expect(r.status).toBe(200);
    expect(await entry(r.json.seq)).toMatchObject({ type: 'erasure', digest, reason: 'GDPR art. 17 request #42' });
  });

  it('in the query, as before; and both when they agree', async () => {
    const a = await storedDigest('query reason');
    const r = await erase(a, { query: 'retention' });
    expect((await entry(r.json.seq)).reason).toBe('retention');
    const b = await storedDigest('both reasons');
    const both = await erase(b, { query: 'same', body: JSON.stringify({ reason: 'same' }) });
    expect((await entry(both.json.seq)).reason).toBe('same');
  });

  for (const [name, init, status] of [
    ['two different reasons', { query: 'one', body: JSON.stringify({ reason: 'two' }) }, 400],
    ['an unknown field', { body: JSON.stringify({ reason: 'x', digest: 'sha256:00' }) }, 400],
    ['a reason that is not a string', { body: JSON.stringify({ reason: 42 }) }, 400],
    ['a body that is not an object', { body: '"just text"' }, 400],
    ['malformed JSON', { body: '{"reason":' }, 400],
    ['a text/plain body', { body: 'reason=x', type: 'text/plain' }, 415],
  ] as const) {
    it(`refuses ${name} (${status}) and erases nothing`, async () => {
      const digest = await storedDigest(`refused: ${name}`);
      const r = await erase(digest, init);
      expect(r.status).toBe(status);
      expect((await get(`${s.url}/v1/payloads/${digest}`)).status).toBe(200);
    });
  }
});
