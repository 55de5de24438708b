// What a receipt's entry says was decided, from the signed entry alone: event, target name,
// principal, time, the MCP era it came over and outcome ("tools/call echo by alice at
// 2026-12-01T10:00:00Z over MCP 2026-07-28: allow"). Arguments are never in an entry (digests
// only), so never in this line.
import type { Entry } from '../log/index.js';

export interface EntrySummary {
  type: string;
  seq: number;
  log: string;
  event?: string;
  phase?: string;
  /** Tool or prompt name, resource URI (decide.ts `target`); absent when the entry names none. */
  target?: string;
  principal?: string;
  onBehalfOf?: string;
  time?: string;
  /** The MCP protocol version the decision was asked over (/mcp, the gateway). */
  protocolVersion?: string;
  /** The gateway's client side, where it spoke another revision than the upstream. */
  clientProtocolVersion?: string;
  /** The MCP client as it named itself (2026-07-28 clientInfo): self-reported, never identity. */
  clientInfo?: { name: string; version: string };
  /** A decision's allow or deny. */
  effect?: string;
  /** An execution's: the decision it claims, its drift severity and flags. */
  authorization?: number | null;
  drift?: string;
  flags?: string[];
  /** The sentence printed for a person. */
  text: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Control characters (a name is caller-chosen text) are shown escaped, never sent to a terminal. */
export function printable(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function summarizeEntry(e: Entry): EntrySummary {
  const d = isRecord(e.decision) ? e.decision : undefined;
  const drift = isRecord(e.drift) ? str(e.drift.severity) : undefined;
  const flags = Array.isArray(e.flags) ? e.flags.filter((f): f is string => typeof f === 'string') : undefined;
  const s: EntrySummary = {
    type: e.type,
    seq: e.seq,
    log: e.log,
    event: str(e.event),
    phase: str(e.phase),
    target: str(e.target),
    principal: str(e.principal),
    onBehalfOf: str(e.onBehalfOf),
    time: str(e.time),
    protocolVersion: str(e.protocolVersion),
    clientProtocolVersion: str(e.clientProtocolVersion),
    clientInfo: isRecord(e.clientInfo) && typeof e.clientInfo.name === 'string' && typeof e.clientInfo.version === 'string' ? { name: e.clientInfo.name, version: e.clientInfo.version } : undefined,
    effect: d ? str(d.effect) : undefined,
    ...(e.type === 'execution' && { authorization: typeof e.authorization === 'number' ? e.authorization : null, drift: drift ?? 'none', flags: flags ?? [] }),
    text: '',
  };
  for (const k of Object.keys(s) as (keyof EntrySummary)[]) if (s[k] === undefined) delete s[k];
  s.text = textOf(s);
  return s;
}

function textOf(s: EntrySummary): string {
  const who = `${s.principal ? ` by ${s.principal}` : ''}${s.onBehalfOf ? ` for ${s.onBehalfOf}` : ''}${s.time ? ` at ${s.time}` : ''}`;
  const what = [s.event, s.target].filter(Boolean).join(' ');
  if (s.type === 'decision') {
    const phase = s.phase === 'response' ? ' (response)' : '';
    // The client names itself: quoted, and said to be its own word, never read as who asked.
    const client = s.clientInfo ? `, client ${JSON.stringify(s.clientInfo.name)} ${s.clientInfo.version} (self-reported)` : '';
    const version = s.clientProtocolVersion && s.clientProtocolVersion !== s.protocolVersion ? `${s.clientProtocolVersion} (upstream ${s.protocolVersion ?? 'unknown'})` : s.protocolVersion;
    const era = version ? ` over MCP ${version}${client}` : client;
    return printable(`${what || 'decision'}${phase}${who}${era}: ${s.effect ?? 'no effect recorded'}`);
  }
  if (s.type === 'execution') {
    const of = s.authorization === null ? 'unauthorized' : `authorized by #${s.authorization}`;
    const flags = s.flags?.length ? ` [${s.flags.join(', ')}]` : '';
    return printable(`executed ${what || '(no event)'}${who}, ${of}: drift ${s.drift}${flags}`);
  }
  return printable(`${s.type} entry${who}`);
}
