// Readiness of the remote interceptors for /healthz (Node and Workers): the service cannot decide
// as configured while the latest call of one failed, so health says which and why.
import type { Activated } from './activate.js';

export type RemoteHealth = { ok: true } | { ok: false; code: 'ERR_INTERCEPTOR_FAILED'; reason: string };

/**
 * Not ok while the latest call of a remote interceptor failed (its server went away mid-run): the
 * decisions that need it are denied until a call succeeds again. On Workers and on Node alike.
 */
export function remoteHealth(active: Pick<Activated, 'remoteFailures'>): RemoteHealth {
  const failing = active.remoteFailures();
  if (failing.length === 0) return { ok: true };
  return { ok: false, code: 'ERR_INTERCEPTOR_FAILED', reason: `the latest call to ${failing.length === 1 ? 'a remote interceptor' : `${failing.length} remote interceptors`} failed, so decisions that need ${failing.length === 1 ? 'it' : 'them'} are denied until one answers again: ${failing.map((f) => `${f.name}: ${f.reason}`).join('; ')}` };
}

