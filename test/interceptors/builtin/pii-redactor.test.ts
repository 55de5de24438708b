import { describe, expect, it } from 'vitest';
import { createPiiRedactor, redactPii } from '../../../src/interceptors/builtin/pii-redactor.js';
import { luhnValid, mod97 } from '../../../src/interceptors/builtin/_pii-patterns.js';
import { PII_KINDS } from '../../../src/interceptors/builtin/_pii-patterns.js';
import type { MutationOutcome } from '../../../src/interceptors/types.js';
import { ctxOf, make } from './_content-ctx.js';

const ALL = new Set(PII_KINDS);
const redactText = (text: string): string => (redactPii({ text }, ALL).payload as { text: string }).text;

describe('pii-redactor', () => {
  it('redacts the phone number of a send_message call exactly', async () => {
    const i = make(createPiiRedactor);
    const payload = { name: 'send_message', arguments: { text: 'call me at 415 555 0199' } };
    const out = (await i.run(payload, ctxOf('tools/call', 'request'))) as MutationOutcome;
    expect(out.modified).toBe(true);
    expect(out.payload).toEqual({ name: 'send_message', arguments: { text: 'call me at [PHONE_REDACTED]' } });
    expect(out.info?.redactions).toBe(1);
    expect(out.info?.byKind).toEqual({ phone: 1 });
    expect(payload.arguments.text).toBe('call me at 415 555 0199'); // input left untouched
  });

  it('walks nested arguments and content[].text of a tool result', () => {
    const result = {
      content: [
        { type: 'text', text: 'Customer: Jane Roe <jane.roe@example.com>, +44 20 7946 0958' },
        { type: 'text', text: 'Paid with 4111 1111 1111 1111, refund to DE89 3704 0044 0532 0130 00' },
      ],
      structuredContent: { customer: { ssn: '123-45-6789', phones: ['(212) 555-0123'] } },
      isError: false,
    };
    const out = redactPii(result, ALL);
    expect(out.payload).toEqual({
      content: [
        { type: 'text', text: 'Customer: Jane Roe <[EMAIL_REDACTED]>, [PHONE_REDACTED]' },
        { type: 'text', text: 'Paid with [CARD_REDACTED], refund to [IBAN_REDACTED]' },
      ],
      structuredContent: { customer: { ssn: '[NATIONAL_ID_REDACTED]', phones: ['[PHONE_REDACTED]'] } },
      isError: false,
    });
    expect(out.info).toEqual({ redactions: 6, byKind: { email: 1, phone: 2, card: 1, iban: 1, national_id: 1 } });
  });

  it.each([
    ['(415) 555-0199', '[PHONE_REDACTED]'],
    ['+1 415-555-0199', '[PHONE_REDACTED]'],
    ['1-800-555-0199', '[PHONE_REDACTED]'],
    ['415.555.0199.', '[PHONE_REDACTED].'],
    ['+49 30 901820', '[PHONE_REDACTED]'],
    ['jane.doe+work@mail.example.co.uk', '[EMAIL_REDACTED]'],
    ['5555-5555-5555-4444', '[CARD_REDACTED]'],
    ['378282246310005', '[CARD_REDACTED]'],
    ['4111 1111 1111 1111 123', '[CARD_REDACTED] 123'],
    ['SSN 078-05-1120', 'SSN [NATIONAL_ID_REDACTED]'],
    ['NI number AB 12 34 56 C', 'NI number [NATIONAL_ID_REDACTED]'],
    ['DNI 12345678Z', 'DNI [NATIONAL_ID_REDACTED]'],
    ['GB82WEST12345698765432', '[IBAN_REDACTED]'],
    ['GB82 WEST 1234 5698 7654 32 (HSBC)', '[IBAN_REDACTED] (HSBC)'],
  ])('redacts %s', (input, expected) => {
    expect(redactText(input)).toBe(expected);
  });

  it.each([
    ['a card number failing Luhn', '4111 1111 1111 1112'],
    ['an IBAN failing mod 97', 'GB82WEST12345698765433'],
    ['an ISO date', 'due 2024-01-15'],
    ['an ISO timestamp', '2024-01-15T10:30:00.000Z and 2024-01-15T10:30:00+05:30'],
    ['version numbers', 'node v20.20.2, build 10.0.19045.3693, pkg@1.2.3'],
    ['a UUID', 'id 550e8400-e29b-41d4-a716-446655440000'],
    ['prices', 'total $1,299.99 (was 4155.55 EUR)'],
    ['an IPv4 address', 'host 192.168.100.200:8080'],
    ['a millisecond timestamp passing Luhn', `ts ${luhnTimestamp()}`],
    ['a bare 10-digit id', 'order 4155550199'],
    ['a sha256 hex digest', '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'],
    ['coordinates', 'at +40.7128 -74.0060'],
    ['an invalid SSN area', '666-12-3456 and 000-12-3456'],
    ['a DNI with the wrong letter', '12345678A'],
  ])('leaves %s alone', (_what, input) => {
    const out = redactPii({ text: input }, ALL);
    expect(out.modified).toBe(false);
    expect(out.info).toEqual({ redactions: 0 });
  });

  it('redacts only the configured kinds', async () => {
    const i = make(createPiiRedactor, { kinds: ['email'] });
    const out = (await i.run({ text: 'bob@example.org 415 555 0199' }, ctxOf('tools/call', 'response'))) as MutationOutcome;
    expect(out.payload).toEqual({ text: '[EMAIL_REDACTED] 415 555 0199' });
  });

  it('returns the same payload object when nothing is found', () => {
    const payload = { name: 'read_file', arguments: { path: '/srv/app/README.md' } };
    const out = redactPii(payload, ALL);
    expect(out).toEqual({ modified: false, payload, info: { redactions: 0 } });
    expect(out.payload).toBe(payload);
  });

  it('is deterministic and idempotent', async () => {
    const i = make(createPiiRedactor);
    const payload = { messages: [{ role: 'user', content: { type: 'text', text: 'mail a@b.io or 212-555-0123' } }] };
    const ctx = ctxOf('sampling/createMessage', 'request');
    const a = await i.run(payload, ctx);
    expect(await i.run(structuredClone(payload), ctx)).toEqual(a);
    expect(((await i.run((a as MutationOutcome).payload, ctx)) as MutationOutcome).modified).toBe(false);
  });

  it('declares mutation with priority {request: -50000, response: 50000}', () => {
    const d = make(createPiiRedactor, undefined, undefined, 'pii').descriptor;
    expect(d).toMatchObject({ name: 'pii', type: 'mutation', priorityHint: { request: -50000, response: 50000 } });
    expect(d.hooks.find((h) => h.phase === 'request')?.events).toContain('tools/call');
    expect(d.hooks.find((h) => h.phase === 'response')?.events).toEqual(
      expect.arrayContaining(['tools/call', 'prompts/get', 'sampling/createMessage', 'elicitation/create']),
    );
  });

  it('lets the declaration override priority and fail-open, omitting defaults on the wire', () => {
    const d = createPiiRedactor({
      name: 'pii',
      config: undefined,
      declaration: { priorityHint: 0, failOpen: true, hooks: [{ events: ['tools/call'], phase: 'response' }] },
      deps: { state: {} as never },
    }).descriptor;
    expect(d).toEqual({ name: 'pii', type: 'mutation', description: expect.any(String), failOpen: true, hooks: [{ events: ['tools/call'], phase: 'response' }] });
  });

  it('rejects bad config with every issue', () => {
    expect(() => make(createPiiRedactor, { kinds: ['phone', 'dna'], colour: 'red' })).toThrow(
      expect.objectContaining({
        code: 'ERR_CONFIG',
        issues: [
          { path: '/config/colour', message: expect.any(String) },
          { path: '/config/kinds/1', message: expect.any(String) },
        ],
      }),
    );
    expect(() => make(createPiiRedactor, 'all')).toThrow(expect.objectContaining({ code: 'ERR_CONFIG' }));
  });

  it('checksums match known vectors', () => {
    expect(luhnValid('79927398713')).toBe(true);
    expect(luhnValid('79927398710')).toBe(false);
    expect(mod97('DE89370400440532013000')).toBe(1);
  });
});

/** A 13-digit millisecond timestamp (leading 1) that passes Luhn: the issuer-digit rule keeps it. */
function luhnTimestamp(): string {
  for (let t = 1717243200000; ; t++) if (luhnValid(String(t))) return String(t);
}
