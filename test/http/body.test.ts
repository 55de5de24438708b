// Reading untrusted bodies (http/body.ts): the limit holds whether the length is declared or not,
// a declared length the body does not keep is no way past it, and a header that is not a plain
// number is no declared length at all.
import { describe, expect, it } from 'vitest';
import { readBodyBytes, readJsonBody } from '../../src/http/body.js';

const post = (body: string | ReadableStream<Uint8Array>, headers: Record<string, string> = {}) =>
  new Request('http://127.0.0.1/', { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers }, ...(typeof body === 'string' ? {} : { duplex: 'half' }) } as RequestInit);

function stream(chunks: number, size: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(c) {
      if (sent++ === chunks) return c.close();
      c.enqueue(new Uint8Array(size).fill(0x20));
    },
  });
}

describe('readBodyBytes', () => {
  it('reads a body of its declared length whole, and refuses a declared length over the limit unread', async () => {
    expect(await readJsonBody(post('{"a":1}', { 'content-length': '7' }), 100)).toEqual({ a: 1 });
    await expect(readBodyBytes(post('x'.repeat(50), { 'content-length': '50' }), 10)).rejects.toMatchObject({ code: 'ERR_TOO_LARGE' });
  });

  it('refuses a body longer than the length it declared (a Request made in code)', async () => {
    const lying = post('x'.repeat(100), { 'content-length': '5' });
    expect(lying.headers.get('content-length')).toBe('5');
    await expect(readBodyBytes(lying, 10)).rejects.toMatchObject({ code: 'ERR_TOO_LARGE' });
  });

  it('streams under the limit when the length is not a plain number, or not given', async () => {
    for (const cl of ['', ' 5', '5, 5', '0x5', '1e3', '-1']) {
      await expect(readBodyBytes(post('x'.repeat(100), { 'content-length': cl }), 10), cl).rejects.toMatchObject({ code: 'ERR_TOO_LARGE' });
      expect(await readBodyBytes(post('xyz', { 'content-length': cl }), 10), cl).toHaveLength(3);
    }
    await expect(readBodyBytes(post(stream(1000, 1024)), 64 * 1024)).rejects.toMatchObject({ code: 'ERR_TOO_LARGE' });
    expect(await readBodyBytes(post(stream(3, 10)), 64)).toHaveLength(30);
  });
});
