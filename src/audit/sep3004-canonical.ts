// The canonical byte form and event hash of the Tamper-Evident Audit Record Contract (MCP SEP-3004,
// now notboatanchor/audit-record-contract, canonical form `audit-record-contract/1`, §2.3-§2.4).
// Not JCS: values are normalized (NFC, U+0020 trim) and numbers are refused. Portable.
import { sha256, toHex, utf8 } from '../canonical/index.js';
import { InputError } from '../errors.js';

export const CANONICAL_FORM_VERSION = 'audit-record-contract/1';
/** §2.7 Compatibility: the SEP-3004 draft's reference implementation named the same form `gif-audit/2`. */
export const CANONICAL_FORM_ALIASES: readonly string[] = [CANONICAL_FORM_VERSION, 'gif-audit/2'];
/** §2.3 baseline length cap, in UTF-16 code units of the normalized value. */
export const MAX_FIELD_LENGTH = 8192;
/** Security Implications: a verifier of untrusted records bounds recursion; conforming records are 3 levels deep. */
export const MAX_RECORD_DEPTH = 16;
/** §2.1: the protected core, less `event_hash` (the output); `extensions` joins it in the preimage. */
export const CORE_PROTECTED = ['event_id', 'occurred_at', 'principal_id', 'event_type', 'tool_name', 'outcome', 'previous_hash'] as const;

// §2.3: Unicode category Cc (C0, DEL and C1) is rejected, not trimmed.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const refuse = (path: string, why: string): never => {
  throw new InputError('ERR_NOT_CANONICAL', `${path || '/'}: ${why} (audit-record-contract/1 §2.3)`, [{ path, message: why }]);
};

/** §2.3 protected-string rule: well-formed, no control character, NFC, U+0020-only trim, length cap. */
export function normalizeProtectedString(s: string, path = ''): string {
  if (CONTROL.test(s)) refuse(path, 'control character in a protected string');
  if (LONE_SURROGATE.test(s)) refuse(path, 'unpaired surrogate in a protected string');
  const n = s.normalize('NFC').replace(/^ +| +$/g, '');
  if (n.length > MAX_FIELD_LENGTH) refuse(path, `protected string longer than ${MAX_FIELD_LENGTH} code units`);
  return n;
}

// §2.3 "escape minimally": only `"` and `\`; every other character literal (controls are refused above).
const quote = (s: string): string => '"' + s.replace(/["\\]/g, (c) => '\\' + c) + '"';

/** §2.3 key order: ascending Unicode code points (= UTF-8 byte order), not UTF-16 code units. */
export function compareCodePoints(a: string, b: string): number {
  const x = Array.from(a), y = Array.from(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0)! - y[i].codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

function encode(value: unknown, path: string, depth: number): string {
  if (depth > MAX_RECORD_DEPTH) refuse(path, `nesting deeper than ${MAX_RECORD_DEPTH}`);
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'string':
      return quote(normalizeProtectedString(value, path));
    case 'number':
      // §2.3: bare numbers have no agreed single form in version /1.
      return refuse(path, 'a bare number in a protected body (encode it as a string)');
    case 'object': {
      if (Array.isArray(value)) return refuse(path, 'an array in a protected body (protected values are strings, booleans and null)');
      const obj = value as Record<string, unknown>;
      // Keys are registry vocabulary and pass verbatim (§2.3), but a key JSON cannot carry literally has no single form.
      const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort(compareCodePoints);
      return '{' + keys.map((k) => {
        const at = `${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`;
        if (CONTROL.test(k) || LONE_SURROGATE.test(k)) refuse(at, 'key with a control character or unpaired surrogate');
        return quote(k) + ':' + encode(obj[k], at, depth + 1);
      }).join(',') + '}';
    }
    default:
      return refuse(path, `a ${typeof value} is not a JSON value`);
  }
}

/** §2.4: the protected body, the core less `event_hash` plus the whole `extensions` object (not `anchor_witness`, §2.8). */
export function protectedBody(record: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const f of CORE_PROTECTED) body[f] = record[f];
  body.extensions = record.extensions;
  return body;
}

/** The canonical form (§2.3) of a record's protected body, as text. Throws InputError ERR_NOT_CANONICAL naming the field. */
export function canonicalForm(record: Record<string, unknown>): string {
  return encode(protectedBody(record), '', 0);
}

/** §2.4: event_hash = lowercase hex SHA-256 of the UTF-8 canonical form. */
export function eventHash(record: Record<string, unknown>): string {
  return toHex(sha256(utf8.encode(canonicalForm(record))));
}

/** Seal records into one segment (§2.4): head `previous_hash` null, each next one the prior `event_hash`. */
export function sealRecord<R extends Record<string, unknown>>(record: R, previous: string | null): R & { previous_hash: string | null; event_hash: string } {
  const linked = { ...record, previous_hash: previous };
  return { ...linked, event_hash: eventHash(linked) };
}
