// NODE-ONLY: the gateway listener's audit routes (issue 37): the read-only app of http/audit-app.ts
// over this gateway's one tenant log, behind the listener's own token check (an audit role, the
// gateway's tenant) and, in front of it in gateway-http.ts, its Origin and Host checks.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { AccessError, ConfigError } from '../errors.js';
import { createAuditApp } from '../http/audit-app.js';
import type { TokenVerifier } from '../http/auth.js';
import type { Caller } from '../http/deps.js';
import type { ProtectedResource } from '../http/oauth-metadata.js';
import { systemClock } from '../clock.js';
import type { GatewayRuntime } from './gateway-node.js';

export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * Without `verify` (no --auth: loopback only, as /mcp is), the caller is the gateway's own principal
 * reading its own log; with it, a token for this resource whose tenant is the gateway's, and the
 * routes ask of it the roles `vouch serve` asks (audit; key history: admin).
 */
export function gatewayAuditHandler(rt: GatewayRuntime, verify: TokenVerifier | undefined, resource: ProtectedResource | undefined): NodeHandler {
  const local: Caller = { principal: rt.principal, tenant: rt.tenant, roles: ['audit', 'admin'] };
  const readOnly = () => {
    throw new ConfigError('ERR_CONFIG', 'the gateway serves its log read-only: change keys with `vouch keys` on a stopped data directory');
  };
  const app = createAuditApp({
    logs: async (tenant) => {
      // One gateway writes one tenant's log; the caller's tenant was checked to be it.
      if (tenant !== rt.tenant) throw new AccessError('ERR_FORBIDDEN', `this gateway serves the log of tenant ${rt.tenant} only`);
      return rt.log;
    },
    policy: async () => rt.policies.clientToServer,
    authenticate: async (authorization) => {
      if (!verify) return local;
      const v = await verify(authorization);
      if (v.caller.tenant !== rt.tenant) throw new AccessError('ERR_FORBIDDEN', `the token is for tenant ${v.caller.tenant}; this gateway serves ${rt.tenant}`);
      return v.caller;
    },
    protectedResource: resource,
    keys: {
      get jwks() {
        return rt.dataDir.jwks();
      },
      get vkeys() {
        return rt.dataDir.vkeys();
      },
      of: (tenant) => ({ jwks: rt.dataDir.jwks(tenant), vkeys: rt.dataDir.vkeys(tenant) }),
      keyId: rt.dataDir.keys[0].keyId,
    },
    keyAdmin: { history: async (tenant) => rt.dataDir.keyHistory(tenant), rotate: readOnly, revoke: readOnly },
    clock: systemClock,
  });
  const listener = getRequestListener(app.fetch);
  return async (req, res) => void (await listener(req, res));
}
