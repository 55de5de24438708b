// The tool pins as the console lists them (GET /v1/tools/pins): the state `vouch tools list` shows,
// folded from the log's `pin` entries by the same rule (mcp/tool-pins.ts applyPinEntry), with when
// and by whom the pinned definition was approved and when the awaiting one was first seen. Portable.
import type { Digest } from '../canonical/index.js';
import { applyPinEntry, type PinState } from '../entries/index.js';

export interface PinRow {
  /** server/tool, as `vouch tools list` names it. */
  tool: string;
  server: string;
  name: string;
  pinned: Digest;
  /** A changed definition awaiting approval (hidden from tools/list, its calls denied), or null. */
  pending: Digest | null;
  /** The newest pin entry of this tool. */
  seq: number;
  /** The entry that pinned `pinned`: first-seen, approved or configured, when and by whom. */
  pinnedBy: { seq: number; action: string; time: string; by: string | null };
  /** The entry that recorded `pending`. */
  changed: { seq: number; time: string } | null;
}

type Rec = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

export class PinFold {
  private readonly state = new Map<string, PinState>();
  private readonly info = new Map<string, Pick<PinRow, 'server' | 'name' | 'pinnedBy' | 'changed'>>();

  /** One entry in log order; entries of other types are ignored. */
  add(seq: number, e: Rec): void {
    if (e.type !== 'pin') return;
    const key = `${str(e.server)}/${str(e.tool)}`;
    const before = this.state.get(key);
    applyPinEntry(this.state, e, seq);
    const after = this.state.get(key);
    if (!after || after === before) return;
    const at = { seq, time: str(e.time) ?? '' };
    const had = this.info.get(key);
    if (after.pending !== undefined && had) this.info.set(key, { ...had, changed: at });
    else this.info.set(key, { server: str(e.server)!, name: str(e.tool)!, pinnedBy: { ...at, action: str(e.action) ?? '', by: str(e.by) }, changed: null });
  }

  /** Awaiting approval first, then by server/tool. */
  rows(): PinRow[] {
    return [...this.state]
      .map(([tool, p]) => ({ tool, ...this.info.get(tool)!, pinned: p.pinned, pending: p.pending ?? null, seq: p.seq }))
      .sort((a, b) => Number(b.pending !== null) - Number(a.pending !== null) || a.tool.localeCompare(b.tool));
  }
}
