// Why a request met Cedar's default deny, in words a caller can act on (issue 37): the resource no
// permit matched, and the roles the caller lacks that would each permit it alone. The hint is
// exact because Cedar answers it: the same request is asked again with one more Role parent, for
// each role the policy text names (a bounded number). Pure and deterministic, so replay agrees.
import type { AuthzRequest, EntityRef, PolicySet } from './types.js';

/** Past this many candidate roles the hint is skipped: its cost grows with them, on every default deny. */
export const MAX_HINT_ROLES = 16;

/** An entity as Cedar writes it: `Tool::"get-env"`. */
export function describeEntity(e: EntityRef): string {
  return `${e.type}::${JSON.stringify(e.id)}`;
}

/** The Role ids a policy text names literally (`Role::"operator"`), sorted; escapes other than JSON's are skipped. */
export function rolesNamedIn(policies: Iterable<string>): string[] {
  const roles = new Set<string>();
  for (const text of policies) {
    for (const m of text.matchAll(/\bRole\s*::\s*"((?:[^"\\]|\\.)*)"/g)) {
      try {
        roles.add(JSON.parse(`"${m[1]}"`) as string);
      } catch {
        // A Cedar-only escape (\u{...}): that role gets no hint.
      }
    }
  }
  return [...roles].sort();
}

/**
 * `no permit matched Tool::"get-env"; the role "operator" would allow it (the caller lacks it)`.
 * Call it only on a default deny (no determining policy, no error).
 */
export function explainDefaultDeny(policySet: PolicySet, req: AuthzRequest): string {
  const base = `no permit matched ${describeEntity(req.resource)}`;
  const held = new Set((req.principalParents ?? []).filter((p) => p.type === 'Role').map((p) => p.id));
  const candidates = (policySet.roles ?? []).filter((r) => !held.has(r));
  if (candidates.length === 0 || candidates.length > MAX_HINT_ROLES) return base;
  const would = candidates.filter((id) => policySet.authorize({ ...req, principalParents: [...(req.principalParents ?? []), { type: 'Role', id }] }).decision === 'allow');
  if (would.length === 0) return base;
  if (would.length === 1) return `${base}; the role ${JSON.stringify(would[0])} would allow it (the caller lacks it)`;
  return `${base}; any of the roles ${would.map((r) => JSON.stringify(r)).join(', ')} would allow it (the caller has none)`;
}
