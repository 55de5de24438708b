// Issue 14 item 4, as an attacker who wants a secret or PII past the redactors: as an object key,
// as a JSON number, split by zero-width characters, as a JWT whose header is not `{"`, and on the
// way back (responses, notifications, list descriptions), which the redactors now hook too.
import { describe, expect, it } from 'vitest';
import { createPiiRedactor, redactPii } from '../../src/interceptors/builtin/pii-redactor.js';
import { createSecretRedactor, redactSecrets } from '../../src/interceptors/builtin/secret-redactor.js';
import { PII_KINDS } from '../../src/interceptors/builtin/_pii-patterns.js';
import { SECRET_KINDS } from '../../src/interceptors/builtin/_patterns.js';
import { selectInterceptors } from '../../src/interceptors/list.js';
import type { MutationOutcome } from '../../src/interceptors/types.js';
import { make } from '../interceptors/builtin/_content-ctx.js';
import * as S from '../interceptors/builtin/_secrets.js';

const PII = new Set(PII_KINDS);
const SECRETS = new Set(SECRET_KINDS);
const CARD = '4111 1111 1111 1111';
const both = (payload: unknown) => (redactSecrets(redactPii(payload, PII).payload, SECRETS).payload);
const text = (v: unknown) => JSON.stringify(v);

describe('redactors against evasion', () => {
  it('redacts values used as object keys, keeping distinct keys distinct', () => {
    const out = both({ arguments: { [S.AWS_KEY_ID]: 'x', [CARD]: 1, ['4012 8888 8888 1881']: 2, note: { [`mail ${'bob@example.com'}`]: true } } });
    expect(text(out)).not.toContain(S.AWS_KEY_ID);
    expect(text(out)).not.toContain('1111 1111');
    expect(text(out)).not.toContain('bob@example.com');
    expect(Object.keys((out as { arguments: object }).arguments)).toEqual(['[SECRET_REDACTED:aws_access_key]', '[CARD_REDACTED]', '[CARD_REDACTED]#2', 'note']);
  });

  it('redacts card and phone numbers sent as JSON numbers', () => {
    const r = redactPii({ card: 4111111111111111, amex: 378282246310005, phone: 2125550123, mobile: 442071838750, nanp: 12125550123, qty: 3, ts: 1735689600000, id: 1234567890 }, PII);
    expect(r.payload).toEqual({
      card: '[CARD_REDACTED]', amex: '[CARD_REDACTED]', phone: '[PHONE_REDACTED]', mobile: '[PHONE_REDACTED]', nanp: '[PHONE_REDACTED]',
      qty: 3, ts: 1735689600000, id: 1234567890,
    });
    expect(r.info).toEqual({ redactions: 5, byKind: { card: 2, phone: 3 } });
  });

  it('sees through zero-width characters inside a value', () => {
    const zw = (s: string) => s.split('').join('\u200b');
    const out = both({ a: `key ${zw(S.AWS_KEY_ID)}`, b: `card 4111\u200c1111\u200d1111\u20601111`, c: `mail bob\ufeff@example.com`, d: zw(S.GITHUB_PAT) });
    expect(out).toEqual({ a: 'key [SECRET_REDACTED:aws_access_key]', b: 'card [CARD_REDACTED]', c: 'mail [EMAIL_REDACTED]', d: '[SECRET_REDACTED:github_pat]' });
    // A plain hit does not hide a split one beside it.
    expect(both({ e: `${S.AWS_KEY_ID} and ${zw(S.STRIPE)}` })).toEqual({ e: '[SECRET_REDACTED:aws_access_key] and [SECRET_REDACTED:stripe_secret_live]' });
    // A zero-width character where a boundary belongs (issue 35): `x\u200bghp_...` reads as `x ghp_...`.
    expect(both({ f: `token\u200b${S.GITHUB_PAT}`, g: `x\u2060${S.STRIPE}`, [`k\u200b${S.AWS_KEY_ID}`]: 1 })).toEqual({ f: 'token[SECRET_REDACTED:github_pat]', g: 'x[SECRET_REDACTED:stripe_secret_live]', 'k[SECRET_REDACTED:aws_access_key]': 1 });
    // Credentials in a URL's userinfo (issue 35).
    expect(redactSecrets({ u: `see https://admin:${S.AWS_SECRET.slice(0, 12)}@db.example.test/x` }, SECRETS).payload).toEqual({ u: 'see https://[SECRET_REDACTED:url_credentials]@db.example.test/x' });
    // Text without anything to redact keeps its zero-width characters (no needless change).
    const plain = { a: 'zero\u200bwidth joiner' };
    expect(redactPii(plain, PII)).toEqual({ modified: false, payload: plain, info: { redactions: 0 } });
  });

  it('catches JWTs whose header does not start with eyJ', () => {
    const spaced = 'eyAiYWxnIjogIkhTMjU2IiwgInR5cCI6ICJKV1QiIH0.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl'; // `{ "alg": ...`
    const newline = 'ewogICJhbGciOiAiUlMyNTYiCn0.IHsic3ViIjoiYm9iIn0.c2ln'; // `{\n  "alg"`, payload ` {"sub"`
    const out = redactSecrets({ a: `Bearer ${spaced}`, b: newline, c: S.JWT }, SECRETS);
    expect(out.payload).toEqual({ a: 'Bearer [SECRET_REDACTED:jwt]', b: '[SECRET_REDACTED:jwt]', c: '[SECRET_REDACTED:jwt]' });
    // Dotted names and versions are not JWTs.
    const names = { a: 'subdomain1234.example.com', b: 'com.example.package.Main', c: 'v1.2.3', d: 'abcdefghijkl.mnop.qrst' };
    expect(redactSecrets(names, SECRETS).modified).toBe(false);
  });

  it('hooks responses, notifications, list descriptions and the initialize instructions', () => {
    for (const ic of [make(createPiiRedactor), make(createSecretRedactor)]) {
      for (const [event, phase] of [
        ['resources/read', 'response'], ['tools/call', 'response'], ['tools/list', 'response'], ['prompts/list', 'response'],
        ['resources/list', 'response'], ['initialize', 'response'], ['completion/complete', 'response'], ['prompts/get', 'request'],
        ['completion/complete', 'request'], ['notifications/message', 'request'], ['notifications/progress', 'request'],
        ['llm/completion', 'request'], ['llm/completion', 'response'],
      ] as const) {
        expect(selectInterceptors([ic], event, phase).length, `${ic.descriptor.description} ${event} ${phase}`).toBe(1);
      }
    }
  });

  it('a filesystem read returning an AWS key reaches the client redacted', async () => {
    const result = { content: [{ type: 'text', text: `[default]\naws_access_key_id = ${S.AWS_KEY_ID}\n` }] };
    const out = (await make(createSecretRedactor).run(result, { event: 'tools/call', phase: 'response', direction: 'receiving', time: 't', signal: new AbortController().signal })) as MutationOutcome;
    expect(text(out.payload)).not.toContain(S.AWS_KEY_ID);
  });
});
