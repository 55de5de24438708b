// JSON -> Cedar JSON values. Cedar has no null and no floats, and reads `__entity`/`__extn`
// objects as entity references and extension calls; tool arguments are attacker-controlled,
// so the conversion is total, deterministic and cannot forge an entity (rules in fixtures/config/README.md).
import { MAX_DEPTH, setMember } from '../canonical/index.js';

export type CedarValue = boolean | number | string | CedarValue[] | { [k: string]: CedarValue };

/** Keys Cedar's JSON format treats as escapes: an argument named like this could forge Role::"admin". */
const ESCAPE_KEYS = new Set(['__entity', '__extn', '__expr']);

/**
 * Convert one JSON value; `undefined` means "drop it".
 * - null (and anything non-JSON) is dropped, from records and from sets;
 * - safe integers become Cedar Longs; other numbers become their JSON (RFC 8785) text as a string;
 * - arrays become Cedar sets (Cedar sets are unordered and without duplicates);
 * - objects become records, minus the escape keys; nesting past MAX_DEPTH is dropped.
 */
export function toCedarValue(value: unknown, depth = 0): CedarValue | undefined {
  if (depth > MAX_DEPTH) return undefined;
  switch (typeof value) {
    case 'boolean':
    case 'string':
      return value;
    case 'number':
      if (Number.isSafeInteger(value)) return value === 0 ? 0 : value; // -0 -> 0
      return Number.isFinite(value) ? String(value) : undefined;
    case 'object': {
      if (value === null) return undefined;
      if (Array.isArray(value)) {
        const out: CedarValue[] = [];
        for (const v of value) {
          const c = toCedarValue(v, depth + 1);
          if (c !== undefined) out.push(c);
        }
        return out;
      }
      return toCedarRecord(value, depth);
    }
    default:
      return undefined;
  }
}

/** Convert a JSON object to a Cedar record; anything that is not an object becomes `{}`. */
export function toCedarRecord(value: unknown, depth = 0): { [k: string]: CedarValue } {
  const out: { [k: string]: CedarValue } = {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return out;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (ESCAPE_KEYS.has(k)) continue;
    const c = toCedarValue(v, depth + 1);
    if (c !== undefined) setMember(out, k, c);
  }
  return out;
}
