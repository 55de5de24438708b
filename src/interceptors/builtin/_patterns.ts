// Secret detectors shared by secret-redactor and cross-boundary-guard: credentials recognised
// verbatim by their public format (prefix + shape), plus the hit utilities the PII detectors reuse.
// Kind ids follow the upstream conformance catalog where they overlap (stripe_secret_live, github_pat, aws_access_key).

export interface Hit<K extends string = string> {
  kind: K;
  start: number;
  end: number;
  value: string;
}

export interface Detector<K extends string> {
  kind: K;
  /** Global regex. If it has a named group `v`, the hit is that group, which must end the match. */
  re: RegExp;
  /** Extra check on the hit's value (checksum, structure); false drops the candidate. */
  check?: (value: string) => boolean;
  /** Not global: something every match contains (its literal prefix). A text without it is not searched with `re`. */
  hint?: RegExp;
}

export const SECRET_KINDS = [
  'aws_access_key',
  'aws_secret_key',
  'github_pat',
  'github_oauth',
  'github_app',
  'github_refresh',
  'stripe_secret_live',
  'stripe_restricted_live',
  'slack_bot',
  'slack_user',
  'slack_app',
  'slack_refresh',
  'google_api_key',
  'jwt',
  'private_key',
  'url_credentials',
] as const;
export type SecretKind = (typeof SECRET_KINDS)[number];

// Not preceded by a token character: `task_live_x` is not a Stripe key.
const B = '(?<![A-Za-z0-9_])';

const SECRET_DETECTORS: Detector<SecretKind>[] = [
  // PEM private keys (PKCS#1, PKCS#8, SEC1, OpenSSH, PGP); a truncated block (no END line) still
  // loses its base64 lines. `\\n` covers keys embedded as escaped JSON (service-account files).
  {
    kind: 'private_key',
    hint: /-----BEGIN /,
    re: /-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----(?:[\s\S]*?-----END \1-----|(?:\s|\\n)*[A-Za-z0-9+/=]{16,}(?:(?:\s|\\n)+[A-Za-z0-9+/=]{16,})*)/g,
  },
  // AWS access key ids: long-term (AKIA) and temporary (ASIA).
  { kind: 'aws_access_key', hint: /AKIA|ASIA/, re: /(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])/g },
  // AWS secret keys have no prefix: only recognised next to their name (config files, env, JSON).
  {
    kind: 'aws_secret_key',
    hint: /secret/i,
    re: /(?:aws[_ -]?secret[_ -]?(?:access[_ -]?)?key|secret[_ -]?access[_ -]?key)(?:\\?["'])?\s*(?::|=>?)\s*(?:\\?["'])?(?<v>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/gi,
  },
  { kind: 'github_pat', hint: /ghp_|github_pat_/, re: new RegExp(`${B}(?:ghp_[A-Za-z0-9]{20,255}|github_pat_[A-Za-z0-9_]{22,255})`, 'g') },
  { kind: 'github_oauth', hint: /gho_/, re: new RegExp(`${B}gho_[A-Za-z0-9]{20,255}`, 'g') },
  { kind: 'github_app', hint: /gh[us]_/, re: new RegExp(`${B}gh[us]_[A-Za-z0-9]{20,255}`, 'g') },
  { kind: 'github_refresh', hint: /ghr_/, re: new RegExp(`${B}ghr_[A-Za-z0-9]{20,255}`, 'g') },
  { kind: 'stripe_secret_live', hint: /sk_live_/, re: new RegExp(`${B}sk_live_[A-Za-z0-9]{16,247}`, 'g') },
  { kind: 'stripe_restricted_live', hint: /rk_live_/, re: new RegExp(`${B}rk_live_[A-Za-z0-9]{16,247}`, 'g') },
  { kind: 'slack_bot', hint: /xoxb-/, re: new RegExp(`${B}xoxb-[0-9A-Za-z-]{10,250}`, 'g') },
  { kind: 'slack_user', hint: /xoxp-/, re: new RegExp(`${B}xoxp-[0-9A-Za-z-]{10,250}`, 'g') },
  { kind: 'slack_app', hint: /xoxa-|xapp-/, re: new RegExp(`${B}(?:xoxa-[0-9A-Za-z-]{10,250}|xapp-[0-9A-Za-z-]{10,250})`, 'g') },
  { kind: 'slack_refresh', hint: /xoxr-/, re: new RegExp(`${B}xoxr-[0-9A-Za-z-]{10,250}`, 'g') },
  // A URL's userinfo (`scheme://user:password@host`, RFC 3986 3.2.1 deprecates it for this
  // reason): all of it goes, the scheme and host stay. It runs to the LAST `@` before the path,
  // query or fragment, as URL parsers split it (a password may hold `@`, quotes, spaces,
  // %-escapes, `%3A` for the colon): stopping at the first `@` or at a quote left the rest signed.
  // Greedy to the last `@`; each match stops at the next `/`, so the scan stays linear.
  { kind: 'url_credentials', hint: /:\/\//, re: /(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*:\/\/(?<v>[^/?#]+)(?=@)/g },
  { kind: 'google_api_key', hint: /AIza/, re: /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])/g },
  // JWS compact form: header.payload.signature. The header is base64url JSON with an `alg`; it
  // starts `eyJ` only when it begins `{"`, so `{ "alg"` (`eyAi`), `{\n` (`ewo`) and others are tried too:
  // any three base64url segments whose first decodes to a JSON object with a string `alg`.
  {
    kind: 'jwt',
    hint: /\.[A-Za-z0-9_-]{2,}\./,
    re: /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*/g,
    check: hasJsonHeader,
  },
];

// Every detector's hint in one test (case-insensitive: never stricter than a hint). Nearly every
// text holds no secret, and searching each with every pattern was most of a redaction's time (and
// every decision record is searched: recorded-text.ts).
const ANY_SECRET_HINT = new RegExp(SECRET_DETECTORS.map((d) => d.hint!.source).join('|'), 'i');

/** Every secret in `text`, non-overlapping, in position order. */
export function findSecrets(text: string, kinds?: ReadonlySet<SecretKind>): Hit<SecretKind>[] {
  if (!ANY_SECRET_HINT.test(text)) return [];
  const detectors = kinds ? SECRET_DETECTORS.filter((d) => kinds.has(d.kind)) : SECRET_DETECTORS;
  return resolveOverlaps(runDetectors(text, detectors), (a, b) => b.end - b.start - (a.end - a.start));
}

export function runDetectors<K extends string>(text: string, detectors: readonly Detector<K>[]): Hit<K>[] {
  const hits: Hit<K>[] = [];
  for (const d of detectors) {
    if (d.hint && !d.hint.test(text)) continue;
    for (const m of allMatches(text, d.re)) {
      const v = m.groups?.v ?? m[0];
      const end = m.index + m[0].length;
      const hit = { kind: d.kind, start: end - v.length, end, value: v };
      if (!d.check || d.check(v)) hits.push(hit);
    }
  }
  return hits;
}

/**
 * What `text.matchAll(re)` gives, for a global `re`, without the copy of `re` that matchAll makes
 * on every call (22 detectors on every string of every payload: the copies were most of the
 * detectors' time). Matches are collected before any is used, and `re` is left at lastIndex 0.
 */
function allMatches(text: string, re: RegExp): RegExpExecArray[] {
  if (!re.global) throw new TypeError('a detector pattern must have the g flag');
  const out: RegExpExecArray[] = [];
  re.lastIndex = 0;
  try {
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      out.push(m);
      // An empty match moves on by one character (a code point with u or v), as matchAll does.
      if (m[0].length === 0) re.lastIndex = advance(text, re.lastIndex, re.unicode || re.flags.includes('v'));
    }
  } finally {
    re.lastIndex = 0;
  }
  return out;
}

function advance(text: string, at: number, unicode: boolean): number {
  if (!unicode || at + 1 >= text.length) return at + 1;
  const c = text.charCodeAt(at);
  return c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(at + 1) & 0xfc00) === 0xdc00 ? at + 2 : at + 1;
}

/**
 * Keeps a set of non-overlapping hits: candidates are taken in `rank` order (first wins), then
 * returned in position order.
 */
export function resolveOverlaps<K extends string>(hits: Hit<K>[], rank: (a: Hit<K>, b: Hit<K>) => number): Hit<K>[] {
  const kept: Hit<K>[] = [];
  // One flag per character: linear in the matched text, where pairwise checks were quadratic
  // in the number of hits (a long list of phone numbers).
  const taken = new Uint8Array(hits.reduce((m, h) => Math.max(m, h.end), 0));
  const ordered = [...hits].sort((a, b) => rank(a, b) || a.start - b.start);
  for (const h of ordered) {
    if (taken.subarray(h.start, h.end).includes(1)) continue;
    taken.fill(1, h.start, h.end);
    kept.push(h);
  }
  return kept.sort((a, b) => a.start - b.start);
}

/** `text` with each hit replaced by `placeholder(hit)`; hits must not overlap. */
export function replaceHits<K extends string>(text: string, hits: readonly Hit<K>[], placeholder: (h: Hit<K>) => string): string {
  let out = '';
  let at = 0;
  for (const h of [...hits].sort((a, b) => a.start - b.start)) {
    out += text.slice(at, h.start) + placeholder(h);
    at = h.end;
  }
  return out + text.slice(at);
}

function hasJsonHeader(token: string): boolean {
  const header = token.slice(0, token.indexOf('.'));
  try {
    const b64 = header.replace(/-/g, '+').replace(/_/g, '/');
    const parsed: unknown = JSON.parse(atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4)));
    return parsed !== null && typeof parsed === 'object' && typeof (parsed as Record<string, unknown>).alg === 'string';
  } catch {
    return false;
  }
}
