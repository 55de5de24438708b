// What free-form text from a caller or an upstream may become once it is signed into the log (which
// cannot erase it) or exported as telemetry: invisible format characters dropped, credentials
// replaced by the secret-redactor's own placeholders (its detectors, not a second set of patterns),
// length bounded. Pure and idempotent, so replay derives the same text from the same input.
import { findSecrets } from './_patterns.js';
import { redactPayload, type Invisible } from './_redact.js';
import { secretPlaceholder } from './secret-redactor.js';

/** Labels (server, session, trace, on-behalf-of) longer than this are cut and end in an ellipsis. */
export const MAX_LABEL_CHARS = 256;

// Unicode format characters (zero-width, bidi overrides) and control characters: invisible in a
// console row or a trace UI, so a label could show one thing and be another.
const INVISIBLE: Invisible = { test: /[\p{Cf}\p{Cc}]/u, all: /[\p{Cf}\p{Cc}]/gu };

const SECRETS = { find: (text: string) => findSecrets(text), placeholder: (h: { kind: Parameters<typeof secretPlaceholder>[0] }) => secretPlaceholder(h.kind) };

/**
 * A label as an entry records it: no invisible characters, every credential the secret-redactor
 * knows replaced by its placeholder, then at most `max` code points (the last an ellipsis).
 * Redaction comes first: a cut must not shorten a credential below what its detector matches.
 */
export function recordedLabel(text: string, max = MAX_LABEL_CHARS): string {
  const found = redactPayload(text, SECRETS, INVISIBLE).payload as string;
  const redacted = INVISIBLE.test.test(found) ? found.replace(INVISIBLE.all, '') : found;
  if (redacted.length <= max) return redacted;
  const cps = Array.from(redacted);
  return cps.length <= max ? redacted : cps.slice(0, max - 1).join('') + '\u2026';
}

/** An optional label: undefined stays undefined. */
export function recordedLabelOf(text: string | undefined, max = MAX_LABEL_CHARS): string | undefined {
  return text === undefined ? undefined : recordedLabel(text, max);
}

/**
 * A JSON value as an entry records it (a decision's messages and reasons, recorded guard state):
 * every credential in a string or a key replaced by its placeholder. The same value back when
 * there is none, so the common case costs one walk and no copy.
 */
export function recordedJson<T>(value: T): T {
  return redactPayload(value, SECRETS, INVISIBLE).payload as T;
}
