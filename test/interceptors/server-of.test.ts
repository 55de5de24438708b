import { describe, expect, it } from 'vitest';
import { DEFAULT_TOOL_SERVERS, serverOf, UNKNOWN_SERVER } from '../../src/interceptors/server-of.js';

const call = (name: string) => ({ name, arguments: {} });

describe('serverOf', () => {
  it('prefers the gateway upstream, then _meta, then the tool map', () => {
    const meta = { 'io.vouch/server': 'warehouse-db' };
    expect(serverOf({ upstream: 'github', meta, event: 'tools/call', payload: call('read_file') })).toBe('github');
    expect(serverOf({ meta, event: 'tools/call', payload: call('read_file') })).toBe('warehouse-db');
    expect(serverOf({ event: 'tools/call', payload: call('read_file') })).toBe('filesystem');
    expect(serverOf({ upstream: '', meta: { 'io.vouch/server': 42 }, event: 'tools/call', payload: call('write_query') })).toBe('sqlite');
  });

  it.each([
    ['read_text_file', 'filesystem'],
    ['list_allowed_directories', 'filesystem'],
    ['append_insight', 'sqlite'],
    ['git_commit', 'git'],
    ['search_nodes', 'memory'],
    ['fetch', 'fetch'],
    ['execute_command', 'shell'],
    ['puppeteer_navigate', 'browser'],
    ['browser_navigate', 'browser'],
  ])('maps the reference tool %s to %s', (tool, server) => {
    expect(serverOf({ event: 'tools/call', toolName: tool })).toBe(server);
  });

  it('lets a toolMap override and extend the defaults; an unmapped tool is its own server', () => {
    const toolMap = { read_file: 'sandbox-fs', create_issue: 'github' };
    expect(serverOf({ event: 'tools/call', payload: call('read_file'), toolMap })).toBe('sandbox-fs');
    expect(serverOf({ event: 'tools/call', payload: call('create_issue'), toolMap })).toBe('github');
    expect(serverOf({ event: 'tools/call', payload: call('send_message') })).toBe('send_message');
    expect(serverOf({ event: 'tools/call', payload: call('toString') })).toBe('toString');
    expect(DEFAULT_TOOL_SERVERS.write_file).toBe('filesystem');
  });

  it('reads the tool name from a whole JSON-RPC message too', () => {
    expect(serverOf({ event: 'tools/call', payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: call('git_log') } })).toBe('git');
  });

  it('uses the resource URI authority, or its scheme, for resources/*', () => {
    expect(serverOf({ event: 'resources/read', payload: { uri: 'file:///home/dev/.env' } })).toBe('filesystem');
    expect(serverOf({ event: 'resources/read', payload: { uri: 'https://user:pw@API.example.com:8443/v1/x' } })).toBe('api.example.com:8443');
    expect(serverOf({ event: 'resources/subscribe', payload: { uri: 'postgres://db.internal/orders' } })).toBe('db.internal');
    expect(serverOf({ event: 'resources/read', payload: { uri: 'memo://insights' } })).toBe('insights');
    expect(serverOf({ event: 'resources/read', payload: { uri: 'urn:isbn:0451450523' } })).toBe('urn');
  });

  it('names the host a client would reach: `\\` ends an http(s) authority, the userinfo ends at its last @', () => {
    // Issue 35, second attacker's pass: a label naming good.example for a URI that reaches evil.example.
    expect(serverOf({ event: 'resources/read', payload: { uri: 'https://evil.example\\@good.example/x' } })).toBe('evil.example');
    expect(serverOf({ event: 'resources/read', payload: { uri: 'https://u:p@ss@Host.Example:8443/a' } })).toBe('host.example:8443');
  });

  it('answers "unknown" when nothing names a server (a bare result)', () => {
    expect(serverOf({ event: 'tools/call', payload: { content: [{ type: 'text', text: 'ok' }] } })).toBe(UNKNOWN_SERVER);
    expect(serverOf({ event: 'sampling/createMessage', payload: { messages: [] } })).toBe(UNKNOWN_SERVER);
    expect(serverOf({ event: 'prompts/get', payload: { name: 'code_review' } })).toBe(UNKNOWN_SERVER);
  });
});
