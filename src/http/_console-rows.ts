// One log entry as a row of the audit console's table (GET /v1/entries) and the filters over rows
// (the chart and breakdowns: _console-chart.ts). Entries are read only through their readers (entries/). Portable.
import { readEntry, type DecisionEntry, type TypedEntry } from '../entries/index.js';
import { InputError, type Issue } from '../errors.js';
import type { Entry } from '../log/index.js';

export type DriftFilter = 'none' | 'benign' | 'suspicious' | 'critical' | 'any';

export interface ConsoleRow {
  seq: number;
  type: string;
  time: string;
  principal: string | null;
  event: string | null;
  /** request or response (decisions), null for other entries. */
  phase: string | null;
  /** A decision's MCP era: the protocol version it was made under and the client as it named itself (claimed, never identity). */
  mcp?: { version: string | null; client: string | null };
  /** The tool name, prompt name or resource URI the entry is about (never a server's name), or null. */
  target: string | null;
  effect: 'allow' | 'deny' | null;
  /** The interceptor that aborted the chain (a deny), or null. */
  decidedBy: string | null;
  /** Drift severity: an execution's own; for a decision the worst over every execution linked to it. */
  drift: string | null;
  /** For a decision, the seq of the latest execution that reports it ran; for an execution, the decision it claims. */
  link: number | null;
  /** For a decision, every execution linked to it, in log order (two or more: `repeated`). */
  executions?: number[];
  /** unauthorized, repeated, drift-critical, ...: an execution's own; for a decision, those of its executions. */
  flags: string[];
  /** A policy entry: what was put in force, by whom. */
  policy?: { action: string | null; chain: string | null; policySet: string | null; pinned: boolean | null; by: string | null };
}

export interface RowFilter {
  type: 'decision' | 'execution' | 'policy' | 'all';
  effect?: 'allow' | 'deny';
  event?: string;
  principal?: string;
  /** The tool, prompt or resource the row is about (its `target`). */
  target?: string;
  since?: number;
  until?: number;
  drift?: DriftFilter;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** The entry's recorded target; for entries written before decide() recorded one, the name a result shows. */
function targetOf(e: DecisionEntry): string | null {
  if (e.target !== undefined) return e.target;
  for (const r of Array.isArray(e.decision.results) ? e.decision.results : []) {
    if (!isRecord(r)) continue;
    const info = isRecord(r.info) ? r.info : undefined;
    if (info && str(info.tool)) return str(info.tool);
  }
  return null;
}

/** A response-phase decision's own drift guard (decide/precheck.ts): the authorization it answers and its drift. */
function guardOf(state: Record<string, unknown>): { authorization: number | null; drift: string | null } {
  const g = isRecord(state['(vouch)']) && isRecord(state['(vouch)'].execution) ? state['(vouch)'].execution : undefined;
  if (!g) return { authorization: null, drift: null };
  return { authorization: typeof g.authorization === 'number' ? g.authorization : null, drift: isRecord(g.drift) ? str(g.drift.severity) : null };
}

/**
 * The row of one entry, read through its type's reader (entries/). Never throws: an entry its
 * reader refuses is shown as what it claims to be, every field null, flagged `malformed`.
 */
export function rowOf(seq: number, raw: Record<string, unknown>): ConsoleRow {
  const row: ConsoleRow = { seq, type: str(raw.type) ?? 'unknown', time: str(raw.time) ?? '', principal: null, event: null, phase: null, target: null, effect: null, decidedBy: null, drift: null, link: null, flags: [] };
  let e: TypedEntry;
  try {
    e = readEntry(raw as unknown as Entry);
  } catch {
    return { ...row, flags: ['malformed'] };
  }
  switch (e.type) {
    case 'decision': {
      const guard = e.phase === 'response' ? guardOf(e.state) : { authorization: null, drift: null };
      const aborted = isRecord(e.decision.abortedAt) ? str(e.decision.abortedAt.interceptor) : null;
      const mcp = { version: e.clientProtocolVersion ?? e.protocolVersion ?? null, client: e.clientInfo ? `${e.clientInfo.name} ${e.clientInfo.version}` : null };
      return { ...row, principal: e.principal ?? null, event: e.event, phase: e.phase, mcp, target: targetOf(e), effect: e.decision.effect, decidedBy: aborted, drift: guard.drift, link: guard.authorization };
    }
    case 'execution': {
      const flags: string[] = [...e.flags];
      if (e.authorization === null && !flags.includes('unauthorized')) flags.push('unauthorized');
      const drift = isRecord(e.drift) ? str(e.drift.severity) : 'none';
      return { ...row, principal: e.principal, event: e.event ?? null, target: e.target ?? null, drift, link: e.authorization, flags };
    }
    case 'policy':
      return { ...row, principal: e.by ?? null, policy: { action: e.action ?? null, chain: e.chain, policySet: e.policySet, pinned: e.pinned ?? null, by: e.by ?? null } };
    default:
      return row;
  }
}

/** What links to an authorization: execution entries and response-phase decisions that answer it. */
export function answersAuthorization(r: ConsoleRow): boolean {
  return r.link !== null && (r.type === 'execution' || (r.type === 'decision' && r.phase === 'response'));
}

/**
 * A decision row with what its linked executions showed: the worst drift over all of them (a
 * later clean execution never hides an earlier critical one), their flags, `repeated` when more
 * than one execution entry claims it, and the target for a linked row that names none.
 */
export function withExecutions(r: ConsoleRow, linked: readonly ConsoleRow[] | undefined, byseq: (seq: number) => ConsoleRow | undefined): ConsoleRow {
  let out = r;
  if (out.target === null && out.link !== null && answersAuthorization(out)) {
    const auth = byseq(out.link);
    if (auth?.target) out = { ...out, target: auth.target };
  }
  if (r.type !== 'decision' || !linked?.length) return out;
  let worst = r.drift;
  const flags = new Set(r.flags);
  for (const x of linked) {
    if (x.drift !== null && (worst === null || rank(x.drift) > rank(worst))) worst = x.drift;
    for (const f of x.flags) if (f !== 'repeated') flags.add(f);
  }
  if (linked.filter((x) => x.type === 'execution').length > 1) flags.add('repeated');
  return { ...out, drift: worst, link: linked[linked.length - 1].seq, executions: linked.map((x) => x.seq), flags: [...flags] };
}

const RANKS: Record<string, number> = { none: 0, benign: 1, suspicious: 2, critical: 3 };
const rank = (s: string) => RANKS[s] ?? 2;

function enumParam<T extends string>(v: string | undefined, allowed: readonly T[], path: string, issues: Issue[]): T | undefined {
  if (v === undefined || v === '') return undefined;
  if ((allowed as readonly string[]).includes(v)) return v as T;
  issues.push({ path, message: `must be one of ${allowed.join(', ')}` });
  return undefined;
}

function timeParam(v: string | undefined, path: string, issues: Issue[]): number | undefined {
  if (v === undefined || v === '') return undefined;
  const t = Date.parse(v);
  if (Number.isNaN(t)) issues.push({ path, message: 'must be an RFC 3339 time' });
  return t;
}

/** The list's query string: every bad field is listed in one ERR_INPUT. */
export function parseRowFilter(q: (name: string) => string | undefined): RowFilter {
  const issues: Issue[] = [];
  const f: RowFilter = {
    type: enumParam(q('type'), ['decision', 'execution', 'policy', 'all'] as const, '/type', issues) ?? 'decision',
    effect: enumParam(q('effect'), ['allow', 'deny'] as const, '/effect', issues),
    event: q('event') || undefined,
    principal: q('principal') || undefined,
    target: q('target') || undefined,
    since: timeParam(q('since'), '/since', issues),
    until: timeParam(q('until'), '/until', issues),
    drift: enumParam(q('drift'), ['none', 'benign', 'suspicious', 'critical', 'any'] as const, '/drift', issues),
  };
  if (issues.length) throw new InputError('ERR_INPUT', `bad entry filter: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);
  return f;
}

export function matchesFilter(r: ConsoleRow, f: RowFilter): boolean {
  if (f.type !== 'all' && r.type !== f.type) return false;
  if (f.effect && r.effect !== f.effect) return false;
  if (f.event && r.event !== f.event) return false;
  if (f.principal && r.principal !== f.principal) return false;
  if (f.target && r.target !== f.target) return false;
  if (f.since !== undefined || f.until !== undefined) {
    const t = Date.parse(r.time);
    if (f.since !== undefined && !(t >= f.since)) return false;
    if (f.until !== undefined && !(t <= f.until)) return false;
  }
  if (f.drift === 'any' && (r.drift === null || r.drift === 'none')) return false;
  if (f.drift && f.drift !== 'any' && (r.drift ?? 'none') !== f.drift) return false;
  return true;
}
