// The /mcp fallback link: the most recent allowed request-phase decision per (tenant, principal,
// session, trace), for response-phase calls that do not name their authorization in
// _meta["io.vouch/authorization"]. Session and trace ids are the caller's word, so the principal
// (and whom it acts for) is part of the key: naming another principal's ids links to nothing. In
// memory and bounded (oldest forgotten first), so it is a convenience, not evidence: what it found
// is recorded in the entry, and after a restart the explicit _meta link is the only one.
import type { LinkOwner } from './link.js';

export const DEFAULT_LINK_CAPACITY = 10_000;

export class RecentAuthorizations {
  private readonly byTenant = new Map<string, Map<string, number>>();

  constructor(private readonly capacity = DEFAULT_LINK_CAPACITY) {}

  /** A request with no session or no trace id is never a fallback target: too ambiguous. */
  private static key(owner: LinkOwner, session: string | undefined, trace: string | undefined): string | undefined {
    return session === undefined || trace === undefined ? undefined : JSON.stringify([owner.principal, owner.onBehalfOf ?? null, session, trace]);
  }

  remember(owner: LinkOwner, session: string | undefined, trace: string | undefined, seq: number): void {
    const k = RecentAuthorizations.key(owner, session, trace);
    if (k === undefined) return;
    let m = this.byTenant.get(owner.tenant);
    if (!m) this.byTenant.set(owner.tenant, (m = new Map()));
    m.delete(k); // re-insert: Map order is recency order
    m.set(k, seq);
    while (m.size > this.capacity) m.delete(m.keys().next().value as string);
  }

  /** A denied request ends the trace's link: a response after it must not fall back to an older allow. */
  forget(owner: LinkOwner, session: string | undefined, trace: string | undefined): void {
    const k = RecentAuthorizations.key(owner, session, trace);
    if (k !== undefined) this.byTenant.get(owner.tenant)?.delete(k);
  }

  lookup(owner: LinkOwner, session: string | undefined, trace: string | undefined): number | undefined {
    const k = RecentAuthorizations.key(owner, session, trace);
    return k === undefined ? undefined : this.byTenant.get(owner.tenant)?.get(k);
  }
}
