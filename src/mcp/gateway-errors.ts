// The JSON-RPC errors the gateway answers with: a deny (with its receipt), a peer that is gone,
// timed out or failed (its own error relayed), a decision that could not be recorded. Codes
// follow the project's JSON-RPC table (http/errors.ts); messages never carry a stack.
import { ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { DecisionOutcome } from '../decide/index.js';
import { codeOf, publicMessage } from '../errors.js';
import { JSONRPC, rpcCodeOf } from '../protocol/index.js';

/** An error the SDK sends as is ({code, message, data}); McpError would prefix the message. */
export class GatewayError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** What the client can do about a deny the recorded reason only states (it is evidence: never reworded). */
export const LIST_TOOLS_HINT = "list the server's tools first (tools/list)";

/** A hint for the deny's determining result: a tools/call whose tool has no listed inputSchema (schema-guard's info). */
function hintFor(outcome: DecisionOutcome): string | undefined {
  const at = outcome.chain.abortedAt;
  if (!at) return undefined;
  const r = outcome.chain.results.find((x) => x.interceptor === at.interceptor);
  return r?.type === 'validation' && r.info?.schema === 'unknown' ? LIST_TOOLS_HINT : undefined;
}

/**
 * The deny as the caller sees it: which interceptor, why, and (for the client) the signed receipt of
 * the decision. The upstream gets no receipt and no sequence number: the evidence is not its.
 */
export function deniedError(outcome: DecisionOutcome, opts: { receipt?: boolean; reason?: boolean } = {}): GatewayError {
  const { chain } = outcome;
  // Without the reason: a deny of the client's answer, told to the upstream. The reason names what
  // the chain withheld (a root's path, a field's value), which is exactly what the upstream must not learn.
  if (opts.reason === false) return new GatewayError(JSONRPC.unauthorized, `denied by vouch (${chain.event}, ${chain.phase})`, { code: 'ERR_FORBIDDEN' });
  const at = chain.abortedAt;
  const why = at ? `${at.interceptor}: ${at.reason}` : `chain status ${chain.status}`;
  const data: Record<string, unknown> = opts.receipt === false ? { code: 'ERR_FORBIDDEN' } : { code: 'ERR_FORBIDDEN', seq: outcome.appended.seq, receipt: outcome.receipt };
  if (at) Object.assign(data, { interceptor: at.interceptor, reason: at.reason });
  // The hint is the client's only: in the message and data.hint, never in the entry's reason.
  const hint = hintFor(outcome);
  if (hint) data.hint = hint;
  return new GatewayError(JSONRPC.unauthorized, `denied by vouch (${chain.event}, ${chain.phase}): ${why}${hint ? `; ${hint}` : ''}`, data);
}

/** The decision could not be made durable (store or signer failure): fail closed, nothing is forwarded. */
export function unrecordedError(e: unknown): GatewayError {
  return new GatewayError(rpcCodeOf(e), `vouch could not record the decision, nothing was forwarded: ${publicMessage(e)}`, { code: codeOf(e) });
}

export function unavailableError(peer: string, why: string): GatewayError {
  return new GatewayError(JSONRPC.unavailable, `${peer} is not available: ${why}`, { peer });
}

const SDK_PREFIX = /^MCP error -?\d+: /;

/**
 * What the peer's failure means to the caller. A JSON-RPC error the peer answered is relayed with
 * its code and message (its data under `upstream`); a closed connection, a timeout or an invalid
 * answer get a clear gateway error. A call cut off in flight may have run: the message says so.
 */
export function peerError(peer: string, e: unknown, timeoutMs: number): GatewayError {
  if (e instanceof GatewayError) return e;
  // The upstream side speaks through the SDK v2 Client: its peer's errors and its own local ones.
  if (e instanceof ProtocolError) return new GatewayError(e.code, e.message, e.data === undefined ? undefined : { peer, upstream: e.data });
  if (e instanceof SdkError) return sdkError(peer, e, timeoutMs);
  if (e instanceof McpError) {
    if (e.code === ErrorCode.ConnectionClosed) return unavailableError(peer, 'the connection closed while the request was in flight (it may or may not have run)');
    if (e.code === ErrorCode.RequestTimeout) return new GatewayError(JSONRPC.timeout, `${peer} did not answer within ${timeoutMs} ms (or the request was cancelled)`, { peer });
    const data = e.data === undefined ? undefined : ({ peer, upstream: e.data } as Record<string, unknown>);
    return new GatewayError(e.code, e.message.replace(SDK_PREFIX, ''), data);
  }
  const message = e instanceof Error ? e.message : String(e);
  if (message === 'Not connected') return unavailableError(peer, 'not connected');
  if ((e as { name?: string })?.name === 'ZodError' || (e as { issues?: unknown })?.issues) return new GatewayError(JSONRPC.internalError, `${peer} sent an answer that is not valid MCP`, { peer });
  return new GatewayError(JSONRPC.internalError, `${peer} failed: ${message.slice(0, 500)}`, { peer });
}

/** The SDK v2 Client's local failures (string codes), as the v1 ones above are told. */
function sdkError(peer: string, e: SdkError, timeoutMs: number): GatewayError {
  switch (e.code) {
    case SdkErrorCode.ConnectionClosed:
      return unavailableError(peer, 'the connection closed while the request was in flight (it may or may not have run)');
    case SdkErrorCode.NotConnected:
      return unavailableError(peer, 'not connected');
    case SdkErrorCode.RequestTimeout:
      return new GatewayError(JSONRPC.timeout, `${peer} did not answer within ${timeoutMs} ms (or the request was cancelled)`, { peer });
    case SdkErrorCode.MethodNotSupportedByProtocolVersion:
      // e.g. logging/setLevel to a 2026-07-28 server: nothing was sent.
      return new GatewayError(JSONRPC.methodNotFound, `${peer} does not serve this method in the MCP revision it speaks: ${e.message.slice(0, 300)}`, { peer });
    case SdkErrorCode.InvalidResult:
    case SdkErrorCode.UnsupportedResultType:
      return new GatewayError(JSONRPC.internalError, `${peer} sent an answer that is not valid MCP: ${e.message.slice(0, 300)}`, { peer });
    default:
      return new GatewayError(JSONRPC.internalError, `${peer} failed: ${e.message.slice(0, 500)}`, { peer, sdk: e.code });
  }
}

/** JSON for an execution entry's result when the peer failed: the code and message only. */
export function errorRecord(e: GatewayError): { error: { code: number; message: string } } {
  return { error: { code: e.code, message: e.message } };
}
