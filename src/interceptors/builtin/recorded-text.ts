// What free-form text from a caller or an upstream may become once it is signed into the log (which
// cannot erase it) or exported as telemetry: invisible characters dropped, credentials
// replaced by the secret-redactor's own placeholders (its detectors, not a second set of patterns),
// length bounded. Pure and idempotent, so replay derives the same text from the same input.
import { findSecrets } from './_patterns.js';
import { INVISIBLE_CLASS, redactPayload, type Invisible } from './_redact.js';
import { secretPlaceholder } from './secret-redactor.js';

/** Labels (server, session, trace, on-behalf-of) longer than this (in code points) are cut and end in an ellipsis. */
export const MAX_LABEL_CHARS = 256;

// What a credential may hide behind: invisible characters (format characters, every
// Default_Ignorable_Code_Point, a blank glyph: _redact.ts INVISIBLE_CLASS) and control characters.
// Detection looks through all of them (_redact.ts findHidden); the invisible ones are then dropped,
// being invisible in a console row or a trace UI (a label could show one thing and be another).
// Control characters stay: readers escape them (receipt/entry-summary.ts).
const HIDING: Invisible = { test: new RegExp(`[${INVISIBLE_CLASS}\\p{Cc}]`, 'u'), all: new RegExp(`[${INVISIBLE_CLASS}\\p{Cc}]`, 'gu') };
const FORMAT = new RegExp(`[${INVISIBLE_CLASS}]`, 'u');
const FORMAT_ALL = new RegExp(`[${INVISIBLE_CLASS}]`, 'gu');

const SECRETS = { find: (text: string) => findSecrets(text), placeholder: (h: { kind: Parameters<typeof secretPlaceholder>[0] }) => secretPlaceholder(h.kind) };

/**
 * A label as an entry records it: every credential the secret-redactor knows replaced by its
 * placeholder, no invisible character, then at most `max` code points and an ellipsis. Redaction
 * comes first: a cut must not shorten a credential below what its detector matches.
 */
export function recordedLabel(text: string, max = MAX_LABEL_CHARS): string {
  let out = redactedOnce(text);
  // A cut can end in what a detector matches (a key whose boundary was the next character): redact
  // the cut text again, until it is stable, so a label is the same after a second pass (replay).
  for (let i = 0; i < 4; i++) {
    const next = redactedOnce(cutTo(out, max));
    if (next === out) return out;
    out = next;
  }
  return out;
}

function redactedOnce(text: string): string {
  const found = redactPayload(text, SECRETS, HIDING).payload as string;
  return FORMAT.test(found) ? found.replace(FORMAT_ALL, '') : found;
}

function cutTo(text: string, max: number): string {
  if (text.length <= max) return text;
  const cps = Array.from(text);
  return cps.length <= max ? text : cps.slice(0, max).join('') + '\u2026';
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
  return redactPayload(value, SECRETS, HIDING).payload as T;
}
