// W3C Trace Context `tracestate` (Level 1, section 3.3): the vendors' part of the caller's trace,
// carried beside traceparent (MCP 2026-07-28 `_meta.tracestate`, or the HTTP header). Pure: parsed,
// validated and bounded here, recorded in the entry, handed to the OTel exporter. Invalid is
// ignored, as the spec says of a tracestate that does not parse (never a decision's concern).

/** 3.3.1.1: at most 32 list-members. */
export const MAX_TRACESTATE_MEMBERS = 32;
/** 3.3.1.5: what a vendor SHOULD propagate at least (and all vouch keeps): list-members and commas, no OWS. */
export const MAX_TRACESTATE_CHARS = 512;
/** 3.3.1.5: when cutting, list-members longer than this go first. */
const LONG_MEMBER_CHARS = 128;

// 3.3.1.3.1 key: simple-key / multi-tenant-key (tenant-id "@" system-id), lowercase only.
const KEY = /^(?:[a-z][a-z0-9_\-*/]{0,255}|[a-z0-9][a-z0-9_\-*/]{0,240}@[a-z][a-z0-9_\-*/]{0,13})$/;
// 3.3.1.3.2 value: 0*255(chr) nblk-chr; chr = SP / nblk-chr; nblk-chr = %x21-2B / %x2D-3C / %x3E-7E.
const VALUE = /^[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;
// OWS = *( SP / HTAB ) around each list-member.
const OWS = /^[ \t]+|[ \t]+$/g;

/**
 * The normalized tracestate (list-members joined by "," without OWS), or undefined when the value
 * is not a valid tracestate (a bad key or value, a duplicate key, more than 32 list-members) or
 * holds no list-member. Longer than 512 characters, it is cut as 3.3.1.5 says: list-members over
 * 128 characters are removed first, then list-members from the end.
 */
export function parseTracestate(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const members: string[] = [];
  const keys = new Set<string>();
  for (const raw of v.split(',')) {
    const m = raw.replace(OWS, '');
    if (m === '') continue; // empty list-members are allowed (combined headers) and not counted
    if (members.length === MAX_TRACESTATE_MEMBERS) return undefined;
    const eq = m.indexOf('=');
    if (eq <= 0) return undefined;
    const key = m.slice(0, eq);
    // A key may appear once: which of two values a vendor meant is unknowable.
    if (!KEY.test(key) || keys.has(key) || !VALUE.test(m.slice(eq + 1))) return undefined;
    keys.add(key);
    members.push(m);
  }
  let kept = members;
  const size = (list: string[]) => list.reduce((n, m) => n + m.length, Math.max(0, list.length - 1));
  if (size(kept) > MAX_TRACESTATE_CHARS) kept = kept.filter((m) => m.length <= LONG_MEMBER_CHARS);
  while (size(kept) > MAX_TRACESTATE_CHARS) kept = kept.slice(0, -1);
  return kept.length > 0 ? kept.join(',') : undefined;
}
