// A relayed message's `_meta`, shaped: the progress token is hop-by-hop routing, taken out of what
// is decided and put back on the next hop; vouch's own `io.vouch/` keys are the gateway's alone.

type Rec = Record<string, unknown>;

export function isRec(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A progress token is hop-by-hop routing (the SDK puts its own on the next hop), so it stays out
 * of decisions. The rest of _meta reaches the peer: it is decided on (and redacted) like the rest.
 */
export function splitProgress(params: unknown): { payload: Rec; token?: unknown } {
  if (!isRec(params)) return { payload: {} };
  if (!isRec(params._meta) || !('progressToken' in params._meta)) return { payload: params };
  const { _meta, ...body } = params;
  const { progressToken, ...meta } = _meta as Rec;
  return { payload: Object.keys(meta).length ? { ...body, _meta: meta } : body, token: progressToken };
}

export function withProgress(payload: Rec, token: unknown): Rec {
  return token === undefined ? payload : { ...payload, _meta: { ...(isRec(payload._meta) ? payload._meta : {}), progressToken: token } };
}

/** vouch's own `_meta` keys: in anything the client gets, set by the gateway alone. */
export const VOUCH_META_PREFIX = 'io.vouch/';

/**
 * A message of the upstream's own (a request to the client, a notification) without the `_meta`
 * keys only the gateway sets: a made-up receipt, seq or receipt URL is no evidence the client may
 * be handed. The decision recorded what the upstream sent; what went out is the execution's wire.
 */
export function withoutVouchMeta(p: Rec): Rec {
  if (!isRec(p._meta) || !Object.keys(p._meta).some((k) => k.startsWith(VOUCH_META_PREFIX))) return p;
  return { ...p, _meta: Object.fromEntries(Object.entries(p._meta).filter(([k]) => !k.startsWith(VOUCH_META_PREFIX))) };
}
