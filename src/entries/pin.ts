// The `pin` entry: a tool definition pinned, changed or approved (mcp/tool-pins.ts folds them into
// the pins in force). One writer, one reader; the reader refuses what the writer would not write.
import type { Digest } from '../canonical/index.js';
import { InputError } from '../errors.js';
import { isDigest } from '../canonical/index.js';
import type { Entry, EntryBody } from '../log/index.js';
import { checkerFor, compact, type FieldSpec } from './_check.js';

export type PinAction = 'first-seen' | 'changed' | 'approved' | 'configured';
export const PIN_ACTIONS: readonly PinAction[] = ['first-seen', 'changed', 'approved', 'configured'];

/** What a pin entry says; the log adds v, log, seq, prev. */
export interface PinFact {
  server: string;
  tool: string;
  action: PinAction;
  /** The digest this entry pins (first-seen, approved, configured) or saw (changed). */
  digest: Digest;
  /** changed: the digest pinned before. */
  pinned?: Digest;
  by?: string;
  session?: string;
}

export type PinEntry = PinFact & { type: 'pin'; time: string; v: 1; log: string; seq: number; prev: string };

export const PIN_FIELDS: FieldSpec<PinFact & { time: string }> = { time: 'required', server: 'required', tool: 'required', action: 'required', digest: 'required', pinned: 'optional', by: 'optional', session: 'optional' };

/** A pin entry body, checked. */
export function pinEntryBody(f: PinFact, time: string): EntryBody {
  if (!isDigest(f.digest)) throw new InputError('ERR_INPUT', `not a digest: ${JSON.stringify(f.digest)}`, [{ path: '/digest', message: 'sha256:<64 hex>' }]);
  if (!f.server || !f.tool) throw new InputError('ERR_INPUT', 'a pin names a server and a tool', [{ path: '/tool', message: 'required' }]);
  return compact({ time, server: f.server, tool: f.tool, action: f.action, digest: f.digest, pinned: f.pinned || undefined, by: f.by || undefined, session: f.session || undefined, type: 'pin' as const });
}

export function readPinEntry(e: Entry): PinEntry {
  const c = checkerFor(e, 'pin');
  c.name('server');
  c.name('tool');
  c.oneOf('action', PIN_ACTIONS);
  c.digest('digest');
  c.digest('pinned', true);
  c.str('by');
  c.str('session');
  c.done('pin');
  return e as unknown as PinEntry;
}
