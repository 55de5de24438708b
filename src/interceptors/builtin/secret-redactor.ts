// secret-redactor: replaces cloud keys, tokens and private keys in outbound payloads with
// `[SECRET_REDACTED:<kind>]`, so a downstream server never receives the credential. Also bound
// as the conformance behavior `secretless-redactor` (only the verbatim value's absence is required).
import type { Interceptor, Json, MutationOutcome } from '../types.js';
import { buildDescriptor, ConfigReader } from './_content-config.js';
import { findSecrets, replaceHits, SECRET_KINDS, type SecretKind } from './_patterns.js';
import { mapStrings } from './_walk.js';
import type { BuiltinFactory } from './types.js';

export interface SecretRedactorConfig {
  kinds: SecretKind[];
}

export function parseSecretRedactorConfig(name: string, config: Json | undefined): SecretRedactorConfig {
  const r = new ConfigReader(name, config, ['kinds']);
  const kinds = r.enumList('kinds', SECRET_KINDS);
  r.done();
  return { kinds: kinds ?? [...SECRET_KINDS] };
}

export function secretPlaceholder(kind: SecretKind): string {
  return `[SECRET_REDACTED:${kind}]`;
}

/** Pure: the payload with secrets replaced, and counts (total and by kind); never the values. */
export function redactSecrets(payload: unknown, kinds: ReadonlySet<SecretKind>): MutationOutcome {
  const byKind: Partial<Record<SecretKind, number>> = {};
  let total = 0;
  const out = mapStrings(payload, (text) => {
    const hits = findSecrets(text, kinds);
    if (hits.length === 0) return text;
    for (const h of hits) byKind[h.kind] = (byKind[h.kind] ?? 0) + 1;
    total += hits.length;
    return replaceHits(text, hits, (h) => secretPlaceholder(h.kind));
  });
  if (total === 0) return { modified: false, payload, info: { redactions: 0 } };
  return { modified: true, payload: out, info: { redactions: total, byKind } };
}

export const createSecretRedactor: BuiltinFactory = ({ name, config, declaration }): Interceptor => {
  const kinds = new Set(parseSecretRedactorConfig(name, config).kinds);
  const descriptor = buildDescriptor(
    name,
    {
      type: 'mutation',
      description: 'Redacts cloud keys, API tokens, JWTs and private keys from outbound payloads.',
      // Before every other mutator on the way out, like pii-redactor.
      priorityHint: { request: -60000, response: 60000 },
      hooks: [{ events: ['tools/call', 'sampling/createMessage', 'elicitation/create'], phase: 'request' }],
    },
    declaration,
  );
  return { descriptor, run: (payload) => redactSecrets(payload, kinds) };
};
