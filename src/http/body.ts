// Reading untrusted request bodies: JSON media type only, size limit enforced while streaming
// (a chunked body with no Content-Length is cut at the limit, never buffered whole), JSON parse,
// and a nesting limit that protects the process (payloads between the decision limit and this
// one become deny entries instead).
import { InputError } from '../errors.js';

/** Envelope nesting accepted at all; the canonical payload limit (64) is enforced in decide. */
export const MAX_BODY_DEPTH = 100;

/**
 * Bodies must be `application/json` (charset, if given, utf-8). A web page can send text/plain,
 * form or multipart bodies cross-site without a CORS preflight; it cannot send this one.
 */
export function requireJsonMediaType(contentType: string | null | undefined): void {
  const [type, ...params] = (contentType ?? '').split(';').map((p) => p.trim().toLowerCase());
  const charset = params.find((p) => p.startsWith('charset='))?.slice('charset='.length).replace(/^"|"$/g, '');
  if (type !== 'application/json' || (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')) {
    throw new InputError('ERR_UNSUPPORTED_MEDIA_TYPE', 'request body must be application/json', [{ path: '/content-type', message: `got ${JSON.stringify(contentType ?? '')}` }]);
  }
}

/** The body's bytes, read chunk by chunk; throws ERR_TOO_LARGE as soon as more than maxBytes arrive. */
export async function readBodyBytes(req: Request, maxBytes: number): Promise<Uint8Array> {
  const tooLarge = () => new InputError('ERR_TOO_LARGE', `request body over ${maxBytes} bytes`);
  const header = req.headers.get('content-length');
  const declared = header !== null && /^\d{1,15}$/.test(header) ? Number(header) : NaN;
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  // A declared length within the limit is all the server's parser lets through: read it whole.
  // On Node that takes @hono/node-server's direct path (no web Request or stream is built for it,
  // which was a tenth of a decision's CPU at 64 callers); without one, read chunk by chunk.
  if (Number.isFinite(declared)) {
    const whole = new Uint8Array(await req.arrayBuffer());
    // A runtime that does not hold a body to its declared length (a Request made in code) still
    // gets no more than the limit past this point.
    if (whole.byteLength > maxBytes) throw tooLarge();
    return whole;
  }
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      // Stop reading: the rest is never held. The server drains or drops the connection.
      void reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  const buf = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    buf.set(c, at);
    at += c.byteLength;
  }
  return buf;
}

// One decoder for every body: decoding whole buffers keeps no state between calls.
const bodyDecoder = new TextDecoder('utf-8', { fatal: true });

export async function readJsonBody(req: Request, maxBytes: number): Promise<unknown> {
  requireJsonMediaType(req.headers.get('content-type'));
  const buf = await readBodyBytes(req, maxBytes);
  let text: string;
  try {
    text = bodyDecoder.decode(buf);
  } catch {
    throw new InputError('ERR_JSON_PARSE', 'request body is not UTF-8');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new InputError('ERR_JSON_PARSE', 'request body is not valid JSON');
  }
  if (depthOver(value, MAX_BODY_DEPTH)) throw new InputError('ERR_TOO_DEEP', `request body nests deeper than ${MAX_BODY_DEPTH}`);
  return value;
}

/** Iterative (no recursion: a hostile body must not blow the stack). */
function depthOver(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (d >= max) return true;
    for (const c of Array.isArray(v) ? v : Object.values(v)) stack.push([c, d + 1]);
  }
  return false;
}
