// What the Node service hands createApp: its tenant logs, keys, signers, auth and health, read
// from the open data directory and the policies in force (node-server.ts wires them).
import { remoteHealth, type Activated } from '../decide/index.js';
import type { PublicKeyEntry } from '../crypto/index.js';
import type { DataDir } from '../store/node.js';
import { describeMldsaBackend } from '../crypto/node.js';
import { systemClock } from '../clock.js';
import type { OtelExporter } from '../observe/otel.js';
import type { NodeTimestamping } from '../timestamp/node-tsa.js';
import type { AuditAppDeps } from './routes-audit.js';
import type { KeyAdmin, KeyAppDeps } from './routes-keys.js';
import { createAuthenticator } from './auth.js';
import { protectedResourceOf } from './oauth-metadata.js';
import type { createLogLifecycle } from './log-lifecycle.js';
import type { ServeOptions } from './serve-options.js';
import type { TenantLogs } from './tenant-logs.js';

export interface NodeAppDepsOptions {
  opts: ServeOptions;
  allowOrigins: string[];
  callers: Record<string, PublicKeyEntry[]>;
  dataDir: DataDir;
  /** The start-up config file's policy. */
  policy: Activated;
  tenants: TenantLogs;
  keyAdmin: KeyAdmin;
  lifecycle: ReturnType<typeof createLogLifecycle>;
  timestamping?: NodeTimestamping;
  otel?: OtelExporter;
}

export function nodeAppDeps({ opts, allowOrigins, callers, dataDir, policy, tenants, keyAdmin, lifecycle, timestamping, otel }: NodeAppDepsOptions): AuditAppDeps & KeyAppDeps {
  return {
    keyAdmin,
    logs: tenants.logs,
    ...(timestamping && { timestamps: timestamping.reads }),
    mldsa: describeMldsaBackend(),
    policy: tenants.policyOf,
    policyAdmin: tenants.policyAdmin,
    authenticate: opts.auth && createAuthenticator(opts.auth, () => systemClock.now()),
    protectedResource: opts.auth && protectedResourceOf(opts.auth),
    // Read per request: the key history changes with a rotation or revocation (issue 18).
    keys: {
      get jwks() {
        return dataDir.jwks();
      },
      get vkeys() {
        return dataDir.vkeys();
      },
      of: (tenant) => ({ jwks: dataDir.jwks(tenant), vkeys: dataDir.vkeys(tenant) }),
      keyId: dataDir.keys[0].keyId,
    },
    clock: systemClock,
    limits: opts.limits,
    allowOrigins,
    logLine: opts.logLine,
    // Ready when every log is open and signing and no remote interceptor's latest call failed (issue 38).
    health: () => {
      const logsReady = lifecycle.health();
      if (!logsReady.ok) return logsReady;
      for (const p of [policy, ...tenants.tenantPolicies()]) {
        const r = remoteHealth(p);
        if (!r.ok) return r;
      }
      return logsReady;
    },
    // The checkpoint key (ML-DSA-65) signs invoke results too (its JWKS kid names it), but under the
    // results' own FIPS 204 context: a result, whatever bytes a caller shaped, never verifies as a
    // checkpoint or note (empty context), nor a checkpoint as a result (issue 35).
    signResult: async (bytes, context) => ({ alg: 'ML-DSA-65', keyId: dataDir.keys[0].keyId, signature: await dataDir.signInContext(bytes, context) }),
    // COSE receipts (RFC 9942) by the current keys; each refuses a root it did not sign (cose-sign.ts).
    coseSigners: (tenant) => ({
      keyNames: [dataDir.originOf(tenant), dataDir.keyName],
      // ML-DSA-65 and Ed25519: the keys that sign the note's text (ML-DSA-44 signs a cosignature message).
      signers: dataDir.keys.flatMap((k) => {
        const s = dataDir.signers.find((x) => x.alg === k.alg);
        return s && (k.alg === 'ML-DSA-65' || k.alg === 'Ed25519') ? [{ alg: k.alg, publicKey: k.publicKey, sign: (m: Uint8Array) => s.sign(m) }] : [];
      }),
    }),
    callerKeys: async (tenant) => (Object.hasOwn(callers, tenant) ? callers[tenant] : []),
    requireCallerSignature: opts.requireCallerSignature === true,
    observe: otel && ((e) => otel.observe(e)),
  };
}
