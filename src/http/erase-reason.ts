// The reason for an erasure (DELETE /v1/payloads/:digest): `?reason=` or a JSON body
// `{"reason": "..."}` (clients that cannot put text in a URL, or should not: URLs are logged).
// Both given must agree; a body with anything else is refused rather than ignored.
import { InputError } from '../errors.js';
import { readJsonBody } from './body.js';

function hasBody(req: Request): boolean {
  return req.headers.has('transfer-encoding') || Number(req.headers.get('content-length') ?? 0) > 0;
}

export async function erasureReasonOf(req: Request, query: string | undefined, maxBytes: number): Promise<string | undefined> {
  if (!hasBody(req)) return query;
  const body = await readJsonBody(req, maxBytes);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new InputError('ERR_INPUT', 'erasure body must be a JSON object {"reason": "..."}', [{ path: '', message: 'must be an object' }]);
  const extra = Object.keys(body).filter((k) => k !== 'reason');
  if (extra.length) throw new InputError('ERR_INPUT', `erasure body has unknown field(s): ${extra.join(', ')}`, extra.map((k) => ({ path: `/${k}`, message: 'unknown field' })));
  const reason = (body as { reason?: unknown }).reason;
  if (reason === undefined) return query;
  if (typeof reason !== 'string') throw new InputError('ERR_INPUT', 'reason must be a string', [{ path: '/reason', message: 'must be a string' }]);
  if (query !== undefined && query !== reason) throw new InputError('ERR_INPUT', 'two different reasons (?reason= and the body): give one', [{ path: '/reason', message: 'differs from ?reason=' }]);
  return reason;
}
