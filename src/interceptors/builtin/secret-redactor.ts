// secret-redactor: replaces cloud keys, tokens and private keys in payloads, both directions, with
// `[SECRET_REDACTED:<kind>]`, so neither the far server nor the client receives the credential. Also bound
// as the conformance behavior `secretless-redactor` (only the verbatim value's absence is required).
import type { Interceptor, Json, MutationOutcome } from '../types.js';
import { buildDescriptor, ConfigReader } from './_content-config.js';
import { findSecrets, SECRET_KINDS, type SecretKind } from './_patterns.js';
import { redactPayload } from './_redact.js';
import { REDACTED_EVENTS } from './_redacted-events.js';
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

/** Pure: the payload with secrets replaced (values and keys), and counts (total and by kind); never the values. */
export function redactSecrets(payload: unknown, kinds: ReadonlySet<SecretKind>): MutationOutcome {
  const r = redactPayload<SecretKind>(payload, { find: (text) => findSecrets(text, kinds), placeholder: (h) => secretPlaceholder(h.kind) });
  if (r.total === 0) return { modified: false, payload, info: { redactions: 0 } };
  return { modified: true, payload: r.payload, info: { redactions: r.total, byKind: r.byKind } };
}

export const createSecretRedactor: BuiltinFactory = ({ name, config, declaration }): Interceptor => {
  const kinds = new Set(parseSecretRedactorConfig(name, config).kinds);
  const descriptor = buildDescriptor(
    name,
    {
      type: 'mutation',
      description: 'Redacts cloud keys, API tokens, JWTs and private keys from payloads, both directions.',
      // Before every other mutator on the way out, like pii-redactor.
      priorityHint: { request: -60000, response: 60000 },
      hooks: [
        { events: [...REDACTED_EVENTS.request], phase: 'request' },
        { events: [...REDACTED_EVENTS.response], phase: 'response' },
      ],
    },
    declaration,
  );
  return { descriptor, run: (payload) => redactSecrets(payload, kinds) };
};
