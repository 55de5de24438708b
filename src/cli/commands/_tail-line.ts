// One log entry as a line of `vouch log tail` text: where it is, what it decided about which tool,
// for whom, and for a deny why (the interceptor that stopped it and its reason). One line per
// entry, always: recorded text is the caller's and an upstream's, so control characters in it
// (a newline forging a second entry, a terminal escape) are shown escaped, never written.

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Rec) : undefined);

/** A field as one printable token of text; `-` when absent. */
function shown(v: unknown): string {
  if (v === undefined || v === null || v === '') return '-';
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  // C0 and C1 controls, DEL, and the line and paragraph separators: escaped as JSON would escape them.
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Why a decision denied: the interceptor that stopped the chain and its reason. */
function denyReason(decision: Rec | undefined): string | undefined {
  const at = rec(decision?.abortedAt);
  if (!at) return undefined;
  return `${shown(at.interceptor)}: ${shown(at.reason)}`;
}

export function formatTailLine(tenant: string, entry: Rec): string {
  const decision = rec(entry.decision);
  const flags = Array.isArray(entry.flags) && entry.flags.length ? entry.flags.join(',') : undefined;
  const fields = [
    tenant,
    `#${shown(entry.seq)}`,
    entry.time,
    entry.type,
    entry.event ?? entry.action, // a pin entry's action (first-seen, changed, approved, configured)
    entry.target ?? entry.tool, // the tool, prompt or resource; a pin entry's tool
    decision?.effect ?? flags, // an execution's flags
    entry.principal ?? entry.by,
  ].map((f, i) => (i < 2 ? String(f) : shown(f)));
  const why = decision?.effect === 'deny' ? denyReason(decision) : undefined;
  return (why ? [...fields, why] : fields).join('  ');
}
