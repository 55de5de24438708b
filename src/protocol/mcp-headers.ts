// Streamable HTTP mirrors body fields into headers (2026-07-28 transports/streamable-http.mdx,
// "Request Metadata"): Mcp-Method is the method, Mcp-Name the name or URI, MCP-Protocol-Version
// the envelope's version. A load balancer or gateway may route and enforce by the headers while
// vouch decides by the body, so the two must say the same, or the request is refused
// (HeaderMismatch) before anything runs. Checked on every request that carries them, any era.
import { fromBase64, utf8 } from '../canonical/index.js';

export interface McpRequestHeaders {
  protocolVersion: string | null;
  method: string | null;
  name: string | null;
}

export type MirroredHeader = 'MCP-Protocol-Version' | 'Mcp-Method' | 'Mcp-Name';

/** What disagreed: the header, its value (null: missing), and what the body says (null: nothing). */
export interface HeaderMismatch {
  header: MirroredHeader;
  value: string | null;
  body: string | null;
  reason: string;
}

/**
 * The body field Mcp-Name mirrors for the methods the spec names (and the tasks extension's),
 * where a 2026 request must carry the header. Any other request that sends Mcp-Name must carry
 * the same `params.name`, else `params.uri`.
 */
const NAME_SOURCE: Readonly<Record<string, string>> = Object.freeze({ 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri', 'tasks/get': 'taskId', 'tasks/update': 'taskId', 'tasks/cancel': 'taskId' });

const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';

/**
 * A header value as the body value it mirrors: plain, or the `=?base64?…?=` sentinel decoded
 * ("Value Encoding": canonical base64 of UTF-8). Undefined for a sentinel that does not decode.
 */
export function decodeMirroredValue(v: string): string | undefined {
  if (!(v.length >= SENTINEL_PREFIX.length + SENTINEL_SUFFIX.length && v.startsWith(SENTINEL_PREFIX) && v.endsWith(SENTINEL_SUFFIX))) return v;
  try {
    return utf8.decode(fromBase64(v.slice(SENTINEL_PREFIX.length, v.length - SENTINEL_SUFFIX.length)));
  } catch {
    return undefined;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The body value Mcp-Name must equal for this request, and the field it comes from. */
function nameSource(method: string, params: unknown): { field: string; value: string | undefined } {
  const p = isObject(params) ? params : {};
  const field = Object.hasOwn(NAME_SOURCE, method) ? NAME_SOURCE[method] : typeof p.name === 'string' ? 'name' : 'uri';
  const v = p[field];
  return { field, value: typeof v === 'string' ? v : undefined };
}

/**
 * The first way the headers disagree with the body, or undefined when they agree. `modern` is
 * the body envelope's claimed version when the request is a 2026 one: then MCP-Protocol-Version
 * must be present and equal it, and a request must name its method in Mcp-Method ("Server
 * Validation": a required header missing is a mismatch too). Header values are case-sensitive.
 */
export function mcpHeaderMismatch(h: McpRequestHeaders, body: unknown, modern?: { version: string }): HeaderMismatch | undefined {
  const single = isObject(body) ? body : undefined;
  const method = typeof single?.method === 'string' ? single.method : undefined;
  const isRequest = single !== undefined && 'id' in single;
  if (modern) {
    if (h.protocolVersion === null) return { header: 'MCP-Protocol-Version', value: null, body: modern.version, reason: `the body's envelope names protocol version ${modern.version} but the MCP-Protocol-Version header is missing` };
    if (h.protocolVersion !== modern.version) return { header: 'MCP-Protocol-Version', value: h.protocolVersion, body: modern.version, reason: `the body's envelope names protocol version ${modern.version} but the MCP-Protocol-Version header names ${h.protocolVersion}` };
    if (isRequest && method !== undefined && h.method === null) return { header: 'Mcp-Method', value: null, body: method, reason: `the body names method ${method} but the Mcp-Method header is missing` };
  }
  if (h.method !== null && h.method !== method) {
    return { header: 'Mcp-Method', value: h.method, body: method ?? null, reason: method === undefined ? 'the Mcp-Method header names a method but the body is not one request or notification' : `the body names method ${method} but the Mcp-Method header names ${h.method}` };
  }
  if (method === undefined) return h.name === null ? undefined : { header: 'Mcp-Name', value: h.name, body: null, reason: 'the Mcp-Name header names something but the body is not one request or notification' };
  const source = nameSource(method, single!.params);
  if (h.name === null) {
    // Required only where the spec requires it, and only when the body carries the value.
    if (modern && isRequest && Object.hasOwn(NAME_SOURCE, method) && source.value !== undefined) return { header: 'Mcp-Name', value: null, body: source.value, reason: `the body carries params.${source.field} but the Mcp-Name header is missing` };
    return undefined;
  }
  const named = decodeMirroredValue(h.name);
  if (named === undefined) return { header: 'Mcp-Name', value: h.name, body: source.value ?? null, reason: 'the Mcp-Name header carries a base64 sentinel that does not decode' };
  if (source.value === undefined) return { header: 'Mcp-Name', value: h.name, body: null, reason: `the Mcp-Name header names ${JSON.stringify(named)} but the body carries no params.${source.field}` };
  if (named !== source.value) return { header: 'Mcp-Name', value: h.name, body: source.value, reason: `the body carries params.${source.field} ${JSON.stringify(source.value)} but the Mcp-Name header names ${JSON.stringify(named)}` };
  return undefined;
}
