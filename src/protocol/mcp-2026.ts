// The MCP 2026-07-28 revision's per-request vocabulary (issue 36): which versions are served with
// the `_meta` envelope and which after `initialize`, the envelope's reserved keys, and the client
// as it claims to be. Pure: the HTTP endpoint decides with these; test/protocol/mcp-2026.test.ts
// holds them equal to the SDK v2 packages' own.

/** The first revision of the stateless era (versioning.mdx "Modern"): no initialize, `_meta` on every request. */
export const FIRST_MODERN_PROTOCOL_VERSION = '2026-07-28';
/** Revisions served statelessly with the per-request envelope, newest first. */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = Object.freeze([FIRST_MODERN_PROTOCOL_VERSION]);
/** Revisions served after an `initialize` handshake (the 2025-era SDK server's own list), newest first. */
export const LEGACY_PROTOCOL_VERSIONS: readonly string[] = Object.freeze(['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07']);
/** Every revision the interceptor endpoint serves: what an UnsupportedProtocolVersion error lists. */
export const SERVED_PROTOCOL_VERSIONS: readonly string[] = Object.freeze([...MODERN_PROTOCOL_VERSIONS, ...LEGACY_PROTOCOL_VERSIONS]);

/**
 * Whether a version string belongs to the stateless era. Revisions are dates, compared as
 * strings, exactly as the SDK's era classifier compares them (any string, date or not), so a
 * request vouch sends the 2025 way is one the classifier would send there too.
 */
export function isModernProtocolVersion(v: string): boolean {
  return v >= FIRST_MODERN_PROTOCOL_VERSION;
}

/** The reserved request `_meta` keys (basic/index.mdx "Per-request protocol fields"). */
export const ENVELOPE_META = Object.freeze({
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  logLevel: 'io.modelcontextprotocol/logLevel',
});
/** The result `_meta` key a server names itself under (a SHOULD on every 2026 result). */
export const SERVER_INFO_META = 'io.modelcontextprotocol/serverInfo';

const ENVELOPE_KEYS: readonly string[] = Object.values(ENVELOPE_META);
/** Top-level request params the multi round-trip pattern reserves (mrtr.mdx): driver material, not handler input. */
const RETRY_KEYS = ['inputResponses', 'requestState'] as const;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The envelope's protocol version claim of a message's params, when it makes one (present, any value). */
export function envelopeClaimOf(params: unknown): { version: unknown } | undefined {
  if (!isObject(params) || !isObject(params._meta) || !(ENVELOPE_META.protocolVersion in params._meta)) return undefined;
  return { version: params._meta[ENVELOPE_META.protocolVersion] };
}

/**
 * Request params as a 2026 handler sees them, and the envelope taken out: the reserved `_meta`
 * keys lifted (and `_meta` dropped when nothing else is left in it) and the retry fields removed,
 * as the SDK's protocol layer lifts them before its handlers run. Params without any are returned
 * as they are.
 */
export function liftEnvelope(params: unknown): { params: unknown; envelope: Record<string, unknown> } {
  if (!isObject(params)) return { params, envelope: {} };
  const meta = params._meta;
  const keys = isObject(meta) ? ENVELOPE_KEYS.filter((k) => k in meta) : [];
  const retry = RETRY_KEYS.filter((k) => k in params);
  if (keys.length === 0 && retry.length === 0) return { params, envelope: {} };
  const out: Record<string, unknown> = { ...params };
  const envelope: Record<string, unknown> = {};
  if (keys.length > 0 && isObject(meta)) {
    const rest: Record<string, unknown> = { ...meta };
    for (const k of keys) {
      envelope[k] = meta[k];
      delete rest[k];
    }
    if (Object.keys(rest).length > 0) out._meta = rest;
    else delete out._meta;
  }
  for (const k of retry) delete out[k];
  return { params: out, envelope };
}

/** The client as it names itself: what an entry records of `clientInfo`, never who the caller is. */
export interface ClaimedClient {
  name: string;
  version: string;
}

/** Each of name and version is kept to this many code points: a client chooses them, an entry is forever. */
export const MAX_CLIENT_FIELD = 128;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Well-formed, not cut: the request body's size limit bounds it, and the recorder redacts first and
 * cuts after (decide-params.ts: a cut first could shorten a credential below what its detector matches).
 */
function bounded(s: string): string {
  // Lone surrogates become U+FFFD: JCS refuses them, and a decision must not fail over a label.
  return s.replace(LONE_SURROGATE, '\uFFFD');
}

/**
 * `io.modelcontextprotocol/clientInfo` reduced to what an entry records: name and version only,
 * each well-formed (the recorder bounds them); undefined when the client named no string name and version. The
 * value is self-reported (basic/index.mdx): recorded for the auditor, never used to decide or to
 * identify the caller (the token does that).
 */
export function claimedClientOf(info: unknown): ClaimedClient | undefined {
  if (!isObject(info) || typeof info.name !== 'string' || typeof info.version !== 'string') return undefined;
  // The recorder redacts, then cuts to MAX_CLIENT_FIELD (decide-params.ts).
  return { name: bounded(info.name), version: bounded(info.version) };
}
