// A request to POST /mcp whose HTTP headers disagree with its body (HeaderMismatch, -32020, HTTP
// 400), refused before anything runs, on either era. Where it asked for a decision
// (interceptor/executeChain), the refusal is that decision: a deny entry that records what
// disagreed, no interceptor run, its receipt in the error's data. Anything else is answered and
// nothing is written. Attacker: a caller steering an intermediary that routes by header.
import { recordedLabel } from '../interceptors/builtin/recorded-text.js';
import type { Guard } from '../decide/index.js';
import { envelopeClaimOf, JSONRPC, liftEnvelope, PROTOCOL_VERSION, type HeaderMismatch } from '../protocol/index.js';
import { eraOfEnvelope, runExecuteChain, type InterceptorSession } from './mcp-server.js';

/** The guard state a refusal records under (decide/guards.ts): the same deny live and under replay. */
export const HEADER_GUARD = 'mcp-headers';
/** Header and body values are caller-chosen: an entry keeps this many characters of each. */
const MAX_RECORDED = 200;
/** Errors that say the request itself is bad: no decision could be asked, so none is recorded. */
const REQUEST_ERRORS = new Set(['ERR_INPUT', 'ERR_UNKNOWN_EVENT', 'ERR_UNKNOWN_INTERCEPTOR', 'ERR_FORBIDDEN']);

// Caller-written text signed into the refusal: redacted first, then cut (recorded-text.ts), never the reverse.
const clip = (v: string | null) => (v === null ? v : recordedLabel(v, MAX_RECORDED));
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function answer(status: number, id: unknown, error: { code: number; message: string; data: unknown }): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', id, error }), { status, headers: { 'Content-Type': 'application/json' } });
}

/**
 * The answer to a request whose headers disagree with its body. `versionHeader` is the
 * MCP-Protocol-Version header: the era a 2025 request's refusal records (a 2026 one records its
 * envelope's version and client).
 */
export async function refuseHeaderMismatch(m: HeaderMismatch, body: unknown, session: InterceptorSession, versionHeader: string | null): Promise<Response> {
  const single = isObject(body) ? body : undefined;
  const id = typeof single?.id === 'string' || typeof single?.id === 'number' ? single.id : null;
  const data: Record<string, unknown> = { code: 'ERR_HEADER_MISMATCH', header: m.header, value: m.value, body: m.body };
  const message = `Header mismatch: ${m.reason}`;
  if (single?.method !== 'interceptor/executeChain' || id === null) return answer(400, id, { code: JSONRPC.headerMismatch, message, data });
  const lifted = liftEnvelope(single.params);
  const era = envelopeClaimOf(single.params) ? eraOfEnvelope(lifted.envelope) : versionHeader !== null && PROTOCOL_VERSION.test(versionHeader) ? { protocolVersion: versionHeader } : {};
  const guard: Guard = {
    name: HEADER_GUARD,
    record: { header: m.header, value: clip(m.value), body: clip(m.body) },
    deny: `refused before the chain: the ${m.header} header disagrees with the request body (HeaderMismatch)`,
  };
  try {
    const decided = (await runExecuteChain(() => session, lifted.params, era, guard)) as { _meta: Record<string, unknown> };
    return answer(400, id, { code: JSONRPC.headerMismatch, message, data: { ...data, ...decided._meta } });
  } catch (e) {
    const error = e as { code: number; message: string; data?: { code?: string } };
    // Bad params as well: there is no decision to record, the mismatch is the answer.
    if (REQUEST_ERRORS.has(error.data?.code ?? '')) return answer(400, id, { code: JSONRPC.headerMismatch, message, data });
    // The refusal could not be recorded (store, signing): say so rather than hide it.
    return answer(503, id, { code: error.code, message: error.message, data: error.data });
  }
}
