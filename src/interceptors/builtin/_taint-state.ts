// The recorded state of cross-boundary-guard: which tainted values (by fingerprint, never the
// value) a request carried and which server returned them. Replay hands it back from the entry,
// so it is parsed like any untrusted input.
import { digestBytes, utf8 } from '../../canonical/index.js';
import { InputError, type Issue } from '../../errors.js';
import type { Json } from '../types.js';

export interface GuardMatch {
  /** The server whose response carried the value. */
  server: string;
  /** sha256:<hex> (or a prefix of it) of the value. */
  fingerprint: string;
  /** Secret kind as detected in this request ("secret" when no detector names it). */
  kind: string;
  /** Where in the request payload (dotted), when a detector located it. */
  path?: string;
}

export interface GuardState {
  matches: GuardMatch[];
}

/** Same fingerprint as the taint store's: the digest of the value's UTF-8 bytes. */
export function fingerprintSecret(value: string): string {
  return digestBytes(utf8.encode(value));
}

export function parseGuardState(state: Json | undefined): GuardState {
  const issues: Issue[] = [];
  const matches: GuardMatch[] = [];
  const list = state !== null && typeof state === 'object' && !Array.isArray(state) ? state.matches : undefined;
  if (!Array.isArray(list)) {
    issues.push({ path: '/matches', message: 'must be an array' });
  } else {
    list.forEach((m, i) => {
      const rec = m !== null && typeof m === 'object' && !Array.isArray(m) ? m : {};
      for (const key of ['server', 'fingerprint', 'kind'] as const) {
        if (typeof rec[key] !== 'string') issues.push({ path: `/matches/${i}/${key}`, message: 'must be a string' });
      }
      if (rec.path !== undefined && typeof rec.path !== 'string') {
        issues.push({ path: `/matches/${i}/path`, message: 'must be a string' });
      }
      if (issues.length === 0) {
        const { server, fingerprint, kind, path } = rec as Record<string, string>;
        matches.push({ server, fingerprint, kind, ...(path !== undefined ? { path } : {}) });
      }
    });
  }
  if (issues.length > 0) throw new InputError('ERR_INPUT', 'cross-boundary-guard: malformed recorded state', issues);
  return { matches };
}
