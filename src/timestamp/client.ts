// POST an RFC 3161 request (RFC 3161 3.4, application/timestamp-query) and take the token out of
// the reply. Any failure (refused, timeout, HTTP error, not a reply to this request) is ERR_TSA.
import { VerificationError } from '../errors.js';
import { buildTimestampRequest, tokenFromReply } from './token.js';

const MAX_REPLY = 64 * 1024;

export async function requestTimestamp(url: string, data: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
  const nonce = crypto.getRandomValues(new Uint8Array(8));
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/timestamp-query', accept: 'application/timestamp-reply' }, body: buildTimestampRequest(data, nonce), signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
  } catch (e) {
    const c = (e as { cause?: { code?: string } }).cause?.code;
    throw new VerificationError('ERR_TSA', `TSA unreachable: ${(e as Error).name === 'TimeoutError' ? `no answer in ${timeoutMs} ms` : c ?? (e as Error).message}`);
  }
  if (res.status !== 200) {
    await res.body?.cancel().catch(() => undefined);
    throw new VerificationError('ERR_TSA', `TSA answered HTTP ${res.status}`);
  }
  return tokenFromReply(await boundedBody(res, timeoutMs), data, nonce);
}

/**
 * The reply's bytes, read only up to MAX_REPLY: the TSA chooses how much it sends and how slowly,
 * so a declared or streamed length past the cap stops the read there, and the deadline (the same
 * signal as the request's) ends a trickle; both are ERR_TSA, never an uncoded abort.
 */
async function boundedBody(res: Response, timeoutMs: number): Promise<Uint8Array> {
  const tooLarge = () => new VerificationError('ERR_TSA', `TSA reply larger than ${MAX_REPLY} bytes`);
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > MAX_REPLY) {
    await res.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!res.body) return new Uint8Array(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > MAX_REPLY) throw tooLarge();
      chunks.push(value);
    }
  } catch (e) {
    await reader.cancel().catch(() => undefined);
    if (e instanceof VerificationError) throw e;
    throw new VerificationError('ERR_TSA', `TSA unreachable: ${(e as Error).name === 'TimeoutError' ? `no answer in ${timeoutMs} ms` : (e as Error).message}`);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) (out.set(c, at), (at += c.length));
  return out;
}
