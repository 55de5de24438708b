// pii-redactor: replaces phone numbers, e-mail addresses, card numbers, national ids and IBANs in
// every string of the payload with fixed placeholders. Runs first on requests and last on
// responses (priority -50000 / 50000) so nothing else sees the raw values when it matters.
import type { Interceptor, Json, MutationOutcome } from '../types.js';
import { buildDescriptor, ConfigReader } from './_content-config.js';
import { type Hit, replaceHits } from './_patterns.js';
import { findPii, PII_KINDS, type PiiKind } from './_pii-patterns.js';
import { mapStrings } from './_walk.js';
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

/** Pure: the payload with PII replaced, and counts (total and by kind). */
export function redactPii(payload: unknown, kinds: ReadonlySet<PiiKind>): MutationOutcome {
  const byKind: Partial<Record<PiiKind, number>> = {};
  let total = 0;
  const out = mapStrings(payload, (text) => {
    const hits = findPii(text, kinds);
    if (hits.length === 0) return text;
    for (const h of hits) byKind[h.kind] = (byKind[h.kind] ?? 0) + 1;
    total += hits.length;
    return replaceHits(text, hits, (h: Hit<PiiKind>) => PII_PLACEHOLDERS[h.kind]);
  });
  if (total === 0) return { modified: false, payload, info: { redactions: 0 } };
  return { modified: true, payload: out, info: { redactions: total, byKind } };
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
        { events: ['tools/call', 'prompts/get', 'sampling/createMessage'], phase: 'request' },
        {
          events: ['tools/call', 'prompts/get', 'resources/read', 'sampling/createMessage', 'elicitation/create'],
          phase: 'response',
        },
      ],
    },
    declaration,
  );
  return { descriptor, run: (payload) => redactPii(payload, kinds) };
};
