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
    await res.body?.cancel();
    throw new VerificationError('ERR_TSA', `TSA answered HTTP ${res.status}`);
  }
  const body = new Uint8Array(await res.arrayBuffer());
  if (body.length > MAX_REPLY) throw new VerificationError('ERR_TSA', `TSA reply larger than ${MAX_REPLY} bytes`);
  return tokenFromReply(body, data, nonce);
}
