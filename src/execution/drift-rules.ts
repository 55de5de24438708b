// Drift classification rules: which JSON Pointer paths matter how much when what ran differs
// from what was authorized. Read from the config's `drift` section; first matching rule wins.
import { ConfigError, type Issue } from '../errors.js';

export type Severity = 'none' | 'benign' | 'suspicious' | 'critical';
export const SEVERITIES: readonly Severity[] = ['none', 'benign', 'suspicious', 'critical'];

export interface DriftRule {
  /**
   * A JSON Pointer pattern. `*` matches one segment, `**` any number of segments. A pattern
   * without a leading `/` matches anywhere (`amount` and `**` + `/amount` are the same). A rule
   * covers the subtree under what it matches: a change inside `/to` is a change of `/to`.
   */
  pattern: string;
  severity: Severity;
}

export interface DriftRules {
  /** Severity of a path no rule matches. */
  default: Severity;
  /** The configured rules, tried before the built-in DEFAULT_RULES. */
  rules: DriftRule[];
  /** Deny a response whose executed parameters drift critically from the authorized intent. */
  failOnCritical: boolean;
}

// Critical rules come first so that a bookkeeping key inside a critical field (`/to/0/id`)
// still counts as a change of the recipient: the cautious reading wins.
const CRITICAL_KEYS = [
  'to', 'cc', 'bcc', 'recipient', 'recipients', 'email',
  'amount', 'value', 'price', 'quantity',
  'url', 'uri', 'host', 'target', 'destination', 'account', 'iban',
  'path', 'file', 'filename', 'directory',
  'command', 'cmd', 'args', 'script', 'query', 'sql',
];
const BENIGN_KEYS = [
  'id', 'requestId', 'request_id', 'traceId', 'trace_id', 'spanId', 'span_id',
  'timestamp', 'time', 'ts', 'createdAt', 'created_at', 'updatedAt', 'updated_at',
  'nonce', 'idempotencyKey', 'idempotency_key',
];

export const DEFAULT_RULES: readonly DriftRule[] = [
  ...CRITICAL_KEYS.map((k) => ({ pattern: k, severity: 'critical' as const })),
  ...BENIGN_KEYS.map((k) => ({ pattern: k, severity: 'benign' as const })),
];

export const DEFAULT_DRIFT_RULES: DriftRules = { default: 'suspicious', rules: [], failOnCritical: false };

const MAX_RULES = 1000;
const MAX_PATTERN = 512;

/** Pattern text -> segments (RFC 6901 unescaped), with the implicit leading `**` and trailing subtree. */
function compile(pattern: string): string[] {
  const anchored = pattern.startsWith('/');
  const segs = (anchored ? pattern.slice(1) : pattern).split('/').map((s) => (s === '*' || s === '**' ? s : s.replace(/~1/g, '/').replace(/~0/g, '~')));
  return [...(anchored ? [] : ['**']), ...segs, '**'];
}

const compiled = new Map<string, string[]>();
function compiledOf(pattern: string): string[] {
  let c = compiled.get(pattern);
  if (!c) {
    c = compile(pattern);
    if (compiled.size < 10_000) compiled.set(pattern, c);
  }
  return c;
}

/** Glob match of pattern segments against path segments, by dynamic programming (no backtracking blow-up). */
export function matchSegments(pat: string[], path: string[]): boolean {
  // ok[j] = pattern prefix of length i matches path prefix of length j.
  let ok = new Array<boolean>(path.length + 1).fill(false);
  ok[0] = true;
  for (const p of pat) {
    const next = new Array<boolean>(path.length + 1).fill(false);
    for (let j = 0; j <= path.length; j++) {
      if (p === '**') next[j] = ok[j] || (j > 0 && next[j - 1]);
      else if (j > 0) next[j] = ok[j - 1] && (p === '*' || p === path[j - 1]);
    }
    ok = next;
  }
  return ok[path.length];
}

export function matchesPattern(pattern: string, segments: string[]): boolean {
  return matchSegments(compiledOf(pattern), segments);
}

/** Configured rules first, then the built-in defaults, then the default severity. */
export function classifyPath(segments: string[], rules: DriftRules): Severity {
  for (const r of rules.rules) if (matchesPattern(r.pattern, segments)) return r.severity;
  for (const r of DEFAULT_RULES) if (matchesPattern(r.pattern, segments)) return r.severity;
  return rules.default;
}

const isSeverity = (v: unknown): v is Severity => typeof v === 'string' && (SEVERITIES as readonly string[]).includes(v);

/**
 * The config's `drift` section: `{default?, rules?: [{pattern, severity}], failOnCritical?}`.
 * `path` and `class` are read as synonyms of `pattern` and `severity` (the example config's
 * spelling). Every bad field is listed, with its path under /drift.
 */
export function parseDriftConfig(input: unknown): DriftRules {
  if (input === undefined || input === null) return { ...DEFAULT_DRIFT_RULES, rules: [] };
  const issues: Issue[] = [];
  const bad = (path: string, message: string) => issues.push({ path: `/drift${path}`, message });
  if (typeof input !== 'object' || Array.isArray(input)) throw new ConfigError('ERR_CONFIG', 'drift must be an object', [{ path: '/drift', message: 'must be an object' }]);
  const o = input as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!['default', 'rules', 'failOnCritical'].includes(k)) bad(`/${k}`, 'unknown field (known: default, rules, failOnCritical)');
  if (o.default !== undefined && !isSeverity(o.default)) bad('/default', `must be one of ${SEVERITIES.join(', ')}`);
  if (o.failOnCritical !== undefined && typeof o.failOnCritical !== 'boolean') bad('/failOnCritical', 'must be true or false');
  const rules: DriftRule[] = [];
  if (o.rules !== undefined) {
    if (!Array.isArray(o.rules) || o.rules.length > MAX_RULES) bad('/rules', `must be an array of at most ${MAX_RULES} rules`);
    else o.rules.forEach((r, i) => {
      const at = `/rules/${i}`;
      if (typeof r !== 'object' || r === null || Array.isArray(r)) return bad(at, 'must be an object {pattern, severity}');
      const x = r as Record<string, unknown>;
      for (const k of Object.keys(x)) if (!['pattern', 'path', 'severity', 'class'].includes(k)) bad(`${at}/${k}`, 'unknown field (known: pattern, severity)');
      if (x.pattern !== undefined && x.path !== undefined) bad(at, 'give pattern or path, not both');
      if (x.severity !== undefined && x.class !== undefined) bad(at, 'give severity or class, not both');
      const pattern = x.pattern ?? x.path;
      const severity = x.severity ?? x.class;
      const pOk = typeof pattern === 'string' && pattern.length > 0 && pattern !== '/' && pattern.length <= MAX_PATTERN;
      if (!pOk) bad(`${at}/pattern`, `must be a non-empty JSON Pointer pattern of at most ${MAX_PATTERN} characters`);
      else if (/~(?![01])/.test(pattern as string)) bad(`${at}/pattern`, 'a "~" must be escaped as ~0 (RFC 6901)');
      if (!isSeverity(severity)) bad(`${at}/severity`, `must be one of ${SEVERITIES.join(', ')}`);
      if (pOk && isSeverity(severity)) rules.push({ pattern: pattern as string, severity });
    });
  }
  if (issues.length) throw new ConfigError('ERR_CONFIG', `bad drift config: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);
  return { default: (o.default as Severity | undefined) ?? 'suspicious', rules, failOnCritical: o.failOnCritical === true };
}
