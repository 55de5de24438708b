// The operator's allow-list of remote interceptor servers (issue 35): its entries are URL prefixes
// checked at parse; a URL matches by scheme, host and port and by path segment, compared as the
// transport will resolve it; every declaration off the list is named in one coded error, and a
// posted policy may not carry a list of its own.
import { describe, expect, it } from 'vitest';
import { assertRemotesAllowed, parseConfig, remoteAllowListOf, remoteUrlAllowed } from '../../src/policy/index.js';

const operator = parseConfig({
  version: 1,
  interceptors: [{ name: 'own', remote: { url: 'http://127.0.0.1:9100/mcp' } }],
  remoteInterceptors: { allow: ['https://guard.example/mcp', 'http://10.0.0.5:8080/'] },
});
const allow = remoteAllowListOf(operator);

describe('remoteInterceptors.allow', () => {
  it('refuses entries that are not URL prefixes, each by its pointer', () => {
    const issuesOf = (remoteInterceptors: unknown) => {
      try {
        parseConfig({ version: 1, interceptors: [], remoteInterceptors });
      } catch (e) {
        expect(e).toMatchObject({ code: 'ERR_CONFIG' });
        return (e as { issues: { path: string }[] }).issues.map((i) => i.path);
      }
      return [];
    };
    expect(issuesOf({ allow: ['ftp://x/', 'guard.example', 'https://u:p@guard.example/', 'https://guard.example/mcp?x=1', 'https://g.example/#f', 'https://ok.example/'] })).toEqual([0, 1, 2, 3, 4].map((i) => `/remoteInterceptors/allow/${i}`));
    expect(issuesOf({ allow: [''], extra: 1 })).toEqual(['/remoteInterceptors/extra', '/remoteInterceptors/allow/0']);
    expect(issuesOf({ allow: 'https://guard.example/' })).toEqual(['/remoteInterceptors/allow']);
    expect(issuesOf({ allow: [] })).toEqual([]);
  });

  it('matches the prefix by scheme, host, port and whole path segments, resolved as the transport resolves them', () => {
    for (const ok of ['https://guard.example/mcp', 'https://GUARD.example:443/mcp', 'https://guard.example/mcp/dlp', 'https://guard.example/mcp?tenant=x', 'http://10.0.0.5:8080/anything', 'http://127.0.0.1:9100/mcp']) expect(remoteUrlAllowed(ok, allow), ok).toBe(true);
    for (const no of [
      'http://guard.example/mcp', // another scheme
      'https://guard.example:8443/mcp', // another port
      'https://guard.example/mcpx',
      'https://guard.example/mcp/../admin',
      'https://guard.example/mcp/%2e%2e/admin',
      'https://guard.example.evil.example/mcp',
      'https://guard.example@evil.example/mcp',
      'https://evil.example/guard.example/mcp',
      'https://guard.example/',
      'http://10.0.0.5:8081/',
      'http://127.0.0.1:9100/other',
      'not a url',
    ]) expect(remoteUrlAllowed(no, allow), no).toBe(false);
  });

  it('names every declaration off the list (and a posted list) in one ERR_REMOTE_NOT_ALLOWED, with no URL in its text', () => {
    const posted = parseConfig({
      version: 1,
      interceptors: [{ name: 'a', remote: { url: 'https://guard.example/mcp' } }, { name: 'b', remote: { url: 'http://127.0.0.1:1/mcp' } }, { name: 'c', remote: { url: 'http://169.254.169.254/latest' } }],
      remoteInterceptors: { allow: ['http://127.0.0.1:1/'] },
    });
    try {
      assertRemotesAllowed(posted, allow, { posted: true });
      expect.unreachable();
    } catch (e) {
      expect(e).toMatchObject({ code: 'ERR_REMOTE_NOT_ALLOWED' });
      expect((e as { issues: { path: string }[] }).issues.map((i) => i.path)).toEqual(['/remoteInterceptors', '/interceptors/1/remote/url', '/interceptors/2/remote/url']);
      expect((e as Error).message).not.toMatch(/127\.0\.0\.1|169\.254/);
    }
    expect(() => assertRemotesAllowed(parseConfig({ version: 1, interceptors: [{ name: 'a', remote: { url: 'https://guard.example/mcp/x' } }] }), allow, { posted: true })).not.toThrow();
    // With no list at all, only the start-up file's own remotes are allowed.
    expect(remoteUrlAllowed('https://guard.example/mcp', remoteAllowListOf(parseConfig({ version: 1, interceptors: [] })))).toBe(false);
  });
});
