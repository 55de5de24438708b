// The 2026-07-28 readers on their own: the spec's Value Encoding examples for mirrored headers,
// the header rules on either era, and what an entry may keep of a client's self-description.
import { recordedLabel } from '../../src/interceptors/builtin/recorded-text.js';
import { describe, expect, it } from 'vitest';
import { claimedClientOf, decodeMirroredValue, liftEnvelope, MAX_CLIENT_FIELD, mcpHeaderMismatch } from '../../src/protocol/index.js';

const none = { protocolVersion: null, method: null, name: null };
const req = (method: string, params?: unknown) => ({ jsonrpc: '2.0', id: 1, method, ...(params !== undefined && { params }) });

describe('decodeMirroredValue (streamable-http.mdx "Value Encoding")', () => {
  it('decodes the spec examples and passes plain values through', () => {
    expect(decodeMirroredValue('us-west1')).toBe('us-west1');
    expect(decodeMirroredValue('=?base64?SGVsbG8sIOS4lueVjA==?=')).toBe('Hello, 世界');
    expect(decodeMirroredValue('=?base64?IHBhZGRlZCA=?=')).toBe(' padded ');
    expect(decodeMirroredValue('=?base64?bGluZTEKbGluZTI=?=')).toBe('line1\nline2');
    expect(decodeMirroredValue('=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=')).toBe('=?base64?literal?=');
  });

  it('refuses a sentinel that is not canonical base64 of UTF-8', () => {
    for (const bad of ['=?base64?###?=', '=?base64?SGVsbG8?=', '=?base64?SGVsbG9=?=', '=?base64?/w==?=']) expect(decodeMirroredValue(bad), bad).toBeUndefined();
  });
});

describe('mcpHeaderMismatch', () => {
  it('no headers, no mismatch on a 2025 request; a 2026 request needs its version and method headers', () => {
    expect(mcpHeaderMismatch(none, req('interceptors/list'))).toBeUndefined();
    expect(mcpHeaderMismatch(none, req('interceptors/list'), { version: '2026-07-28' })).toMatchObject({ header: 'MCP-Protocol-Version', value: null });
    expect(mcpHeaderMismatch({ ...none, protocolVersion: '2026-07-28' }, req('interceptors/list'), { version: '2026-07-28' })).toMatchObject({ header: 'Mcp-Method', value: null, body: 'interceptors/list' });
    // A notification need not name its method (the spec leaves notification headers undefined).
    expect(mcpHeaderMismatch({ ...none, protocolVersion: '2026-07-28' }, { jsonrpc: '2.0', method: 'notifications/x' }, { version: '2026-07-28' })).toBeUndefined();
  });

  it('Mcp-Name must equal the body name on any method that carries one, and a body without one refuses any Mcp-Name', () => {
    const h = (name: string) => ({ ...none, method: 'interceptor/invoke', name });
    expect(mcpHeaderMismatch(h('pii'), req('interceptor/invoke', { name: 'pii' }))).toBeUndefined();
    expect(mcpHeaderMismatch(h('PII'), req('interceptor/invoke', { name: 'pii' }))).toMatchObject({ header: 'Mcp-Name', value: 'PII', body: 'pii' });
    expect(mcpHeaderMismatch({ ...none, method: 'resources/read', name: 'file:///a' }, req('resources/read', { uri: 'file:///a' }))).toBeUndefined();
    expect(mcpHeaderMismatch({ ...none, method: 'interceptor/executeChain', name: 'echo' }, req('interceptor/executeChain', { payload: { name: 'echo' } }))).toMatchObject({ header: 'Mcp-Name', body: null });
    expect(mcpHeaderMismatch({ ...none, name: 'x' }, [req('interceptors/list')])).toMatchObject({ header: 'Mcp-Name' });
  });
});

describe('claimedClientOf', () => {
  it('keeps name and version only, bounded and well-formed; nothing for anything else', () => {
    expect(claimedClientOf({ name: 'c', version: '1', title: 'T', icons: [] })).toEqual({ name: 'c', version: '1' });
    for (const bad of [undefined, null, 'c', { name: 'c' }, { name: 1, version: '1' }, ['c', '1']]) expect(claimedClientOf(bad), JSON.stringify(bad)).toBeUndefined();
    // Not cut here: the recorder redacts first, then cuts to MAX_CLIENT_FIELD (decide-params.ts, issue 35).
    const long = claimedClientOf({ name: '😀'.repeat(1000), version: 'v\ud800' })!;
    expect(Array.from(long.name)).toHaveLength(1000);
    expect(long.version).toBe('v\ufffd');
    expect(Array.from(recordedLabel(long.name, MAX_CLIENT_FIELD - 1))).toHaveLength(MAX_CLIENT_FIELD);
  });
});

describe('liftEnvelope', () => {
  it('returns params without envelope or retry fields as they are (the same object)', () => {
    const p = { a: 1, _meta: { traceparent: 't' } };
    expect(liftEnvelope(p).params).toBe(p);
    expect(liftEnvelope(undefined)).toEqual({ params: undefined, envelope: {} });
  });
});
