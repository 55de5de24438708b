import { describe, expect, it } from 'vitest';
import { contentBuiltins } from '../../../src/interceptors/builtin/_registry-content.js';
import { findSecrets, runDetectors, SECRET_KINDS } from '../../../src/interceptors/builtin/_patterns.js';
import { createSecretRedactor, redactSecrets } from '../../../src/interceptors/builtin/secret-redactor.js';
import type { MutationOutcome } from '../../../src/interceptors/types.js';
import { ctxOf, make } from './_content-ctx.js';
import * as S from './_secrets.js';

const ALL = new Set(SECRET_KINDS);

describe('secret-redactor', () => {
  it.each([
    ['stripe_secret_live', S.STRIPE],
    ['github_pat', S.GITHUB_PAT],
    ['aws_access_key', S.AWS_KEY_ID],
  ])('removes a verbatim %s from an outbound write_query (conformance redaction-*)', async (kind, secret) => {
    const i = make(createSecretRedactor, undefined, undefined, 'security/secretless-redactor');
    const payload = { name: 'write_query', arguments: { query: `INSERT INTO notes (body) VALUES ('${secret}')` } };
    const out = (await i.run(payload, ctxOf('tools/call', 'request', { sessionId: `redaction-${kind}` }))) as MutationOutcome;
    expect(out.modified).toBe(true);
    expect(JSON.stringify(out.payload)).not.toContain(secret);
    expect(out.payload).toEqual({
      name: 'write_query',
      arguments: { query: `INSERT INTO notes (body) VALUES ('[SECRET_REDACTED:${kind}]')` },
    });
    expect(out.info).toEqual({ redactions: 1, byKind: { [kind]: 1 } });
  });

  it('redacts every known format, never echoing the value in info', () => {
    const env = [
      `AWS_ACCESS_KEY_ID=${S.AWS_KEY_ID}`,
      `aws_secret_access_key = ${S.AWS_SECRET}`,
      `GITHUB_TOKEN=${S.GITHUB_FINE}`,
      `SLACK_BOT_TOKEN=${S.SLACK_BOT}`,
      `SLACK_APP_TOKEN=${S.SLACK_APP}`,
      `GOOGLE_API_KEY=${S.GOOGLE}`,
      `STRIPE_RESTRICTED=${S.STRIPE_RESTRICTED}`,
      `SESSION=${S.JWT}`,
      `STS=${S.AWS_TEMP_KEY_ID}`,
    ].join('\n');
    const payload = { name: 'write_file', arguments: { path: '/workspace/.env', content: env, key: S.PEM } };
    const out = redactSecrets(payload, ALL);
    const text = JSON.stringify(out.payload);
    for (const s of [S.AWS_KEY_ID, S.AWS_SECRET, S.GITHUB_FINE, S.SLACK_BOT, S.SLACK_APP, S.GOOGLE, S.STRIPE_RESTRICTED, S.JWT, S.PEM, S.AWS_TEMP_KEY_ID]) {
      expect(text).not.toContain(s);
    }
    expect((out.payload as { arguments: { content: string; key: string } }).arguments).toEqual({
      path: '/workspace/.env',
      content: [
        'AWS_ACCESS_KEY_ID=[SECRET_REDACTED:aws_access_key]',
        'aws_secret_access_key = [SECRET_REDACTED:aws_secret_key]',
        'GITHUB_TOKEN=[SECRET_REDACTED:github_pat]',
        'SLACK_BOT_TOKEN=[SECRET_REDACTED:slack_bot]',
        'SLACK_APP_TOKEN=[SECRET_REDACTED:slack_app]',
        'GOOGLE_API_KEY=[SECRET_REDACTED:google_api_key]',
        'STRIPE_RESTRICTED=[SECRET_REDACTED:stripe_restricted_live]',
        'SESSION=[SECRET_REDACTED:jwt]',
        'STS=[SECRET_REDACTED:aws_access_key]',
      ].join('\n'),
      key: '[SECRET_REDACTED:private_key]',
    });
    expect(out.info?.redactions).toBe(10);
    expect(JSON.stringify(out.info)).not.toMatch(/AKIA|eyJ|BEGIN/);
  });

  it('finds a private key embedded as escaped JSON (a service-account file)', () => {
    const sa = JSON.stringify({ type: 'service_account', private_key: S.PEM.replace(/RSA /g, '') + '\n' });
    const hits = findSecrets(sa);
    expect(hits.map((h) => h.kind)).toEqual(['private_key']);
    expect(hits[0].value).toContain('-----END PRIVATE KEY-----');
  });

  it.each([
    ['a Stripe test key', 'sk_test_4eC39HqLyjWDarjtT1zdp7dc'],
    ['an identifier that merely contains the prefix', 'task_live_abcdefghijklmnopqrstuv'],
    ['a base64url string that is not a JWT', 'eyJub3QiOiJhIGp3dCJ9.eyJhIjoxfQ.abc'],
    ['an AWS key id inside a longer token', `X${S.AWS_KEY_ID}Y`],
    ['a 40-character value with no AWS name near it', `checksum=${S.AWS_SECRET}`],
    ['a public certificate', '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----'],
  ])('leaves %s alone', (_what, text) => {
    expect(redactSecrets({ name: 'fetch', arguments: { body: text } }, ALL).modified).toBe(false);
  });

  it('redacts only the configured kinds', async () => {
    const i = make(createSecretRedactor, { kinds: ['github_pat'] });
    const out = (await i.run({ a: S.GITHUB_PAT, b: S.STRIPE }, ctxOf('tools/call', 'request'))) as MutationOutcome;
    expect(out.payload).toEqual({ a: '[SECRET_REDACTED:github_pat]', b: S.STRIPE });
  });

  it('is deterministic', async () => {
    const i = make(createSecretRedactor);
    const payload = { name: 'fetch', arguments: { url: 'https://api.example.com', headers: { Authorization: `Bearer ${S.JWT}` } } };
    const ctx = ctxOf('tools/call', 'request');
    expect(await i.run(structuredClone(payload), ctx)).toEqual(await i.run(payload, ctx));
  });

  it('is registered as secret-redactor and secretless-redactor, declaration overriding hooks', () => {
    expect(contentBuiltins['secretless-redactor']).toBe(createSecretRedactor);
    const i = contentBuiltins['secret-redactor']({
      name: 'sr',
      config: undefined,
      declaration: { hooks: [{ events: ['tools/call'], phase: 'request' }], mode: 'audit' },
      deps: { state: {} as never },
    });
    expect(i.descriptor).toEqual({
      name: 'sr',
      type: 'mutation',
      description: expect.any(String),
      hooks: [{ events: ['tools/call'], phase: 'request' }],
      mode: 'audit',
      priorityHint: { request: -60000, response: 60000 },
    });
  });

  it('refuses a declaration of another type and bad config', () => {
    expect(() =>
      createSecretRedactor({ name: 'sr', config: undefined, declaration: { type: 'validation' }, deps: { state: {} as never } }),
    ).toThrow(expect.objectContaining({ code: 'ERR_CONFIG', issues: [expect.objectContaining({ path: '/type' })] }));
    expect(() => make(createSecretRedactor, { kinds: [] })).toThrow(expect.objectContaining({ code: 'ERR_CONFIG' }));
  });
});

// runDetectors walks each pattern with exec (no per-call copy of the pattern): it must find
// exactly what String.prototype.matchAll finds, empty matches and surrogate pairs included.
describe('runDetectors', () => {
  it('finds what matchAll finds, and leaves every pattern at lastIndex 0', () => {
    const detectors = [
      { kind: 'digits', re: /\d{3}/g },
      { kind: 'empty', re: /x*/g },
      { kind: 'unicode-empty', re: /(?:)/gu },
      { kind: 'named', re: /(?<v>[a-z]+)@/g },
      { kind: 'checked', re: /\d+/g, check: (v: string) => v.length % 2 === 0 },
    ];
    const byMatchAll = (text: string) =>
      detectors.flatMap((d) =>
        [...text.matchAll(d.re)].flatMap((m) => {
          const v = m.groups?.v ?? m[0];
          const end = m.index + m[0].length;
          return !d.check || d.check(v) ? [{ kind: d.kind, start: end - v.length, end, value: v }] : [];
        }),
      );
    for (const text of ['', 'abc@ 123456 x 12', 'xx\u{1F600}xy', '\u{1F4A9}\u{1F4A9}a\ud800', 'aaaaa@bb@']) {
      expect(runDetectors(text, detectors)).toEqual(byMatchAll(text));
      for (const d of detectors) expect(d.re.lastIndex).toBe(0);
    }
    expect(() => runDetectors('x', [{ kind: 'k', re: /x/ }])).toThrow(/g flag/);
  });
});
