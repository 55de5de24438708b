// Pin state folded from `pin` entries (the gateway's tool pins, mcp/tool-pins.ts): pure, so the
// console's read-only route (http/) and the gateway (mcp/) share it without importing each other.
import { digestJson, isDigest, type Digest } from '../canonical/index.js';

export interface PinState {
  /** The approved digest: calls and listings of this definition pass. */
  pinned: Digest;
  /** The newest differing definition seen (a change awaiting approval). */
  pending?: Digest;
  seq: number;
}

/** Fold one decoded entry into pin state (non-pin entries are ignored). */
export function applyPinEntry(state: Map<string, PinState>, e: Record<string, unknown>, seq: number): void {
  if (e.type !== 'pin' || typeof e.server !== 'string' || typeof e.tool !== 'string' || !isDigest(e.digest)) return;
  const key = `${e.server}/${e.tool}`;
  const cur = state.get(key);
  if (e.action === 'changed') {
    if (cur) state.set(key, { ...cur, pending: e.digest, seq });
  } else if (e.action === 'first-seen' || e.action === 'approved' || e.action === 'configured') {
    state.set(key, { pinned: e.digest, seq });
  }
}

/** A tool definition as pinned: what the model reads and what the call must match. */
export function toolDefinition(tool: Record<string, unknown>): Record<string, unknown> {
  const def: Record<string, unknown> = {};
  for (const k of ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations']) if (tool[k] !== undefined) def[k] = tool[k];
  return def;
}

/** The digest of a tool definition (JCS, sha256): the pin, and the key its payload is kept under. */
export function toolDigest(tool: Record<string, unknown>): Digest {
  return digestJson(toolDefinition(tool));
}
