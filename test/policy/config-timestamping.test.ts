// The `timestamping` section (issue 41 part 2): parsed strictly, every bad field named; it is the
// operator's, so a tenant's posted policy that names a TSA of its own is refused.
import { describe, expect, it } from 'vitest';
import { assertRemotesAllowed, parseConfig, remoteAllowListOf } from '../../src/policy/index.js';

const base = { version: 1, interceptors: [{ name: 'pii', use: 'pii-redactor' }] };

describe('timestamping in the config file', () => {
  it('parses url, certificates and the cadence; neither cadence given: once an hour', () => {
    expect(parseConfig({ ...base, timestamping: { url: 'https://tsa.example/tsr', certificates: 'tsa.pem', everyEntries: 100 } }).timestamping).toEqual({ url: 'https://tsa.example/tsr', certificates: 'tsa.pem', everyEntries: 100 });
    expect(parseConfig({ ...base, timestamping: { url: 'http://127.0.0.1:1/t', certificates: 'a.pem' } }).timestamping).toEqual({ url: 'http://127.0.0.1:1/t', certificates: 'a.pem', everyMinutes: 60 });
  });

  it('names every bad field at once', () => {
    try {
      parseConfig({ ...base, timestamping: { url: 'ftp://x', everyEntries: 0, everyMinutes: 'often', extra: 1 } });
      expect.unreachable();
    } catch (e) {
      const paths = (e as { issues: { path: string }[] }).issues.map((i) => i.path).sort();
      expect((e as { code: string }).code).toBe('ERR_CONFIG');
      expect(paths).toEqual(['/timestamping/certificates', '/timestamping/everyEntries', '/timestamping/everyMinutes', '/timestamping/extra', '/timestamping/url'].sort());
    }
  });

  it("a posted policy naming a TSA is refused: which TSA stamps the log is the operator's", () => {
    const operator = parseConfig(base);
    const posted = parseConfig({ ...base, timestamping: { url: 'https://attacker.example/tsr', certificates: 'mine.pem' } });
    expect(() => assertRemotesAllowed(posted, remoteAllowListOf(operator), { posted: true })).toThrow(expect.objectContaining({ code: 'ERR_REMOTE_NOT_ALLOWED', issues: [expect.objectContaining({ path: '/timestamping' })] }));
    expect(() => assertRemotesAllowed(operator, remoteAllowListOf(operator), { posted: true })).not.toThrow();
  });
});
