// Reading untrusted request bodies: size limit, JSON parse, and a nesting limit that protects
// the process (payloads between the decision limit and this one become deny entries instead).
import { InputError } from '../errors.js';

/** Envelope nesting accepted at all; the canonical payload limit (64) is enforced in decide. */
export const MAX_BODY_DEPTH = 100;

export async function readJsonBody(req: Request, maxBytes: number): Promise<unknown> {
  const declared = Number(req.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) throw new InputError('ERR_TOO_LARGE', `request body over ${maxBytes} bytes`);
  const buf = new Uint8Array(await req.arrayBuffer());
  if (buf.length > maxBytes) throw new InputError('ERR_TOO_LARGE', `request body over ${maxBytes} bytes`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(buf);
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
