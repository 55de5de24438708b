// pii-redactor: replaces phone numbers, e-mail addresses, card numbers, national ids and IBANs in
// every string, key and number of the payload, both directions, with fixed placeholders. Runs first on requests and last on
// responses (priority -50000 / 50000) so nothing else sees the raw values when it matters.
import type { Interceptor, Json, MutationOutcome } from '../types.js';
import { buildDescriptor, ConfigReader } from './_content-config.js';
import type { Hit } from './_patterns.js';
import { findPii, luhnValid, PII_KINDS, type PiiKind } from './_pii-patterns.js';
import { redactPayload } from './_redact.js';
import { REDACTED_EVENTS } from './_redacted-events.js';
import type { BuiltinFactory } from './types.js';

export const PII_PLACEHOLDERS: Record<PiiKind, string> = {
  phone: '[PHONE_REDACTED]',
  email: '[EMAIL_REDACTED]',
  card: '[CARD_REDACTED]',
  national_id: '[NATIONAL_ID_REDACTED]',
  iban: '[IBAN_REDACTED]',
};

export interface PiiRedactorConfig {
  kinds: PiiKind[];
}

export function parsePiiRedactorConfig(name: string, config: Json | undefined): PiiRedactorConfig {
  const r = new ConfigReader(name, config, ['kinds']);
  const kinds = r.enumList('kinds', PII_KINDS);
  r.done();
  return { kinds: kinds ?? [...PII_KINDS] };
}

const PHONE_KEY = /phone|(?:^|[^a-z])tel(?:$|[^a-z])|mobile|cell|fax|msisdn|whatsapp/i;

/**
 * An integer sent as a JSON number that is a card number (13-19 digits, issuer 2-6, Luhn), or a
 * phone number: NANP with its `1` prefix, or any valid national/E.164 length under a phone-like key.
 */
export function numberPiiKind(n: number, key: string | undefined, kinds: ReadonlySet<PiiKind>): PiiKind | undefined {
  if (!Number.isSafeInteger(n) || n <= 0) return undefined;
  const digits = String(n);
  if (kinds.has('card') && digits.length >= 13 && /^[2-6]/.test(digits) && luhnValid(digits)) return 'card';
  if (!kinds.has('phone')) return undefined;
  const nanp = (d: string) => /^[2-9]\d{2}[2-9]\d{6}$/.test(d);
  if (digits.length === 11 && digits[0] === '1' && nanp(digits.slice(1))) return 'phone';
  if (key !== undefined && PHONE_KEY.test(key) && (nanp(digits) || (digits.length >= 8 && digits.length <= 15))) return 'phone';
  return undefined;
}

/** Pure: the payload with PII replaced (values, keys, numbers), and counts (total and by kind). */
export function redactPii(payload: unknown, kinds: ReadonlySet<PiiKind>): MutationOutcome {
  const r = redactPayload<PiiKind>(payload, {
    find: (text) => findPii(text, kinds),
    placeholder: (h: Hit<PiiKind>) => PII_PLACEHOLDERS[h.kind],
    numberKind: (n, key) => numberPiiKind(n, key, kinds),
  });
  if (r.total === 0) return { modified: false, payload, info: { redactions: 0 } };
  return { modified: true, payload: r.payload, info: { redactions: r.total, byKind: r.byKind } };
}

export const createPiiRedactor: BuiltinFactory = ({ name, config, declaration }): Interceptor => {
  const kinds = new Set(parsePiiRedactorConfig(name, config).kinds);
  const descriptor = buildDescriptor(
    name,
    {
      type: 'mutation',
      description: 'Redacts phone numbers, e-mail addresses, card numbers, national ids and IBANs.',
      priorityHint: { request: -50000, response: 50000 },
      hooks: [
        { events: [...REDACTED_EVENTS.request], phase: 'request' },
        { events: [...REDACTED_EVENTS.response], phase: 'response' },
      ],
    },
    declaration,
  );
  return { descriptor, run: (payload) => redactPii(payload, kinds) };
};
