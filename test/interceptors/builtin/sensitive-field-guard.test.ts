import { describe, expect, it } from 'vitest';
import { categoryOfProse, createSensitiveFieldGuard, FIELD_CATEGORIES, normalizeWords } from '../../../src/interceptors/builtin/sensitive-field-guard.js';
import type { ValidationOutcome } from '../../../src/interceptors/types.js';
import { ctxOf, make } from './_content-ctx.js';

const ctx = ctxOf('elicitation/create', 'request');
const ask = (properties: Record<string, unknown>) => ({
  message: 'Please complete your profile',
  requestedSchema: { type: 'object', properties, required: Object.keys(properties) },
});

describe('sensitive-field-guard', () => {
  it('denies a bank routing number request with the exact path', async () => {
    const guard = make(createSensitiveFieldGuard);
    const payload = {
      message: 'Please provide your bank details',
      requestedSchema: { type: 'object', properties: { routingNumber: { type: 'string', title: 'Bank routing number' } } },
    };
    const out = (await guard.run(payload, ctx)) as ValidationOutcome;
    expect(out.valid).toBe(false);
    expect(out.severity).toBe('error');
    expect(out.messages).toHaveLength(1);
    expect(out.messages![0]).toMatchObject({ severity: 'error', path: 'requestedSchema.properties.routingNumber' });
    expect(out.messages![0].message).toContain('bank');
  });

  it.each([
    ['bank', { acct: { type: 'string', title: 'Account number' } }],
    ['bank', { iban: { type: 'string' } }],
    ['bank', { sort_code: { type: 'string', description: 'UK sort code' } }],
    ['card', { cardNumber: { type: 'string' } }],
    ['card', { cvv: { type: 'string', title: 'CVV', minLength: 3, maxLength: 4 } }],
    ['card', { code: { type: 'string', description: 'The 3-digit card verification code on the back' } }],
    ['card', { cc_number: { type: 'string', title: 'Credit card' } }],
    ['password', { password: { type: 'string', format: 'password' } }],
    ['password', { pin: { type: 'string', title: 'PIN' } }],
    ['password', { otp: { type: 'string', title: 'One-time code' } }],
    ['national-id', { ssn: { type: 'string', title: 'SSN' } }],
    ['national-id', { taxId: { type: 'string' } }],
    ['national-id', { doc: { type: 'string', title: 'Passport number' } }],
    ['national-id', { id: { type: 'string', description: 'Your Social Security Number' } }],
  ])('denies a %s field %j', async (category, props) => {
    const out = (await make(createSensitiveFieldGuard).run(ask(props), ctx)) as ValidationOutcome;
    expect(out.valid).toBe(false);
    expect(out.messages![0].message).toContain(`${category} data`);
    expect(out.messages![0].path).toBe(`requestedSchema.properties.${Object.keys(props)[0]}`);
  });

  it('does not fire on a description that tells the user not to give it (server-everything form)', async () => {
    // The real field of server-everything's trigger-elicitation-request (it was flagged as password data).
    const out = await make(createSensitiveFieldGuard).run(
      ask({ integer: { type: 'integer', title: 'Integer', description: 'Your favorite integer (do not give us your phone number, pin, or other sensitive info)' } }),
      ctx,
    );
    expect(out).toEqual({ valid: true });
  });

  it('still fires on prose that asks for it, including attempts to borrow a negation', () => {
    const asks = [
      'Enter your PIN',
      "Don't worry, just enter your PIN",
      'Do not give up hope, enter your PIN',
      'Your bank PIN, required to verify the transfer',
      'Please type your card number. Do not share your password.',
      'Do not share it with anyone: your password',
    ];
    for (const t of asks) expect(categoryOfProse(t, FIELD_CATEGORIES), t).toBeDefined();
    for (const t of ['never share your password with anyone', 'No need to provide your SSN', 'do not give us your phone number, pin, or other sensitive info'])
      expect(categoryOfProse(t, FIELD_CATEGORIES), t).toBeUndefined();
  });

  it('checks names and titles as labels, whatever the description says', async () => {
    const out = (await make(createSensitiveFieldGuard).run(ask({ pin: { type: 'string', description: 'do not give us your pin' } }), ctx)) as ValidationOutcome;
    expect(out.valid).toBe(false);
    const titled = (await make(createSensitiveFieldGuard).run(ask({ x: { type: 'string', title: 'PIN code', description: 'never share it' } }), ctx)) as ValidationOutcome;
    expect(titled.valid).toBe(false);
  });

  it('allows an ordinary profile form', async () => {
    const out = await make(createSensitiveFieldGuard).run(
      ask({
        name: { type: 'string', title: 'Full name' },
        email: { type: 'string', format: 'email' },
        accountName: { type: 'string', title: 'GitHub account name' },
        spinnerStyle: { type: 'string', enum: ['dots', 'line'] },
        opinion: { type: 'string', description: 'Your opinion on the new design' },
        age: { type: 'integer', minimum: 0 },
        newsletter: { type: 'boolean', default: false },
      }),
      ctx,
    );
    expect(out).toEqual({ valid: true });
  });

  it('lists every sensitive field, and honours category and allow config', async () => {
    const payload = ask({ password: { type: 'string' }, cardNumber: { type: 'string' }, name: { type: 'string' } });
    const all = (await make(createSensitiveFieldGuard).run(payload, ctx)) as ValidationOutcome;
    expect(all.messages!.map((m) => m.path)).toEqual(['requestedSchema.properties.password', 'requestedSchema.properties.cardNumber']);
    const onlyCards = (await make(createSensitiveFieldGuard, { categories: ['card'] }).run(payload, ctx)) as ValidationOutcome;
    expect(onlyCards.messages!.map((m) => m.path)).toEqual(['requestedSchema.properties.cardNumber']);
    expect(await make(createSensitiveFieldGuard, { allow: ['password', 'cardNumber'] }).run(payload, ctx)).toEqual({ valid: true });
  });

  it('passes a payload without a schema, and is deterministic', async () => {
    const guard = make(createSensitiveFieldGuard);
    expect(await guard.run({ message: 'Continue?' }, ctx)).toEqual({ valid: true });
    const p = ask({ routing_no: { type: 'string' } });
    expect(await guard.run(structuredClone(p), ctx)).toEqual(await guard.run(p, ctx));
  });

  it('normalises names into words', () => {
    expect(normalizeWords('routingNumber')).toBe(' routing number ');
    expect(normalizeWords('bank_routing-no')).toBe(' bank routing no ');
    expect(normalizeWords('IBANCode')).toBe(' iban code ');
  });

  it('declares elicitation/create request and rejects bad config', () => {
    expect(make(createSensitiveFieldGuard).descriptor.hooks).toEqual([{ events: ['elicitation/create'], phase: 'request' }]);
    expect(() => make(createSensitiveFieldGuard, { categories: ['dna'], allow: 'x' })).toThrow(
      expect.objectContaining({ code: 'ERR_CONFIG', issues: [expect.objectContaining({ path: '/config/categories/0' }), expect.objectContaining({ path: '/config/allow' })] }),
    );
  });
});
