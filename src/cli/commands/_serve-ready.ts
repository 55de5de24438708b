// What `vouch serve` tells its operator when it is ready: the URL, the console's URL, the config
// file (and whether it was just created), and per tenant the policy in force with the entry it
// came from. A config file that is not the policy in force is a warning with the way to activate it.
import { existsSync } from 'node:fs';
import { toHex } from '../../canonical/index.js';
import { jwksKid, noteKeyId } from '../../crypto/index.js';
import type { RunningServer } from '../../http/node-server.js';
import { describeActivation, policyInForce, short, type PolicyActivation } from './_policy-history.js';

const CONSOLE_INDEX = new URL('../../../web/dist/index.html', import.meta.url);

export interface TenantReady {
  tenant: string;
  chain: string;
  policySet: string;
  interceptors: number;
  /** The newest policy entry (where the policy in force came from). */
  entry?: PolicyActivation;
  /** Whether the config file's policy is the one in force. */
  configInForce: boolean;
}

/**
 * A signing key by both its ids (issue 37): the JWKS kid (what /.well-known/vouch/keys and the console
 * show) and, per log, the `name+id` its checkpoint lines carry (what every verifier shows).
 */
export interface ReadyKey {
  alg: string;
  kid: string;
  checkpoints: string[];
}

export interface Ready {
  msg: 'vouch ready';
  url: string;
  /** The ML-DSA-65 key's JWKS kid. */
  keyId: string;
  keys: ReadyKey[];
  /** The ML-DSA-65 backend that signs checkpoints: native (node:crypto) when the runtime has it, else noble. */
  mldsa: string;
  /** The audit console's URL, or null when web/dist is not built. */
  console: string | null;
  config: string;
  configCreated: boolean;
  configChain: string;
  /** Kept from the first ready line: the chain in force for the first tenant listed (the file's when none). */
  policy: string;
  interceptors: number;
  tenants: TenantReady[];
}

export function consoleBuilt(): boolean {
  return existsSync(CONSOLE_INDEX);
}

export async function readyReport(server: RunningServer, opts: { tenants: string[]; configCreated: boolean }): Promise<Ready> {
  const tenants: TenantReady[] = [];
  for (const tenant of opts.tenants) {
    const p = await server.policyOf(tenant);
    const entry = policyInForce(server.dataDir.log(tenant).store);
    tenants.push({ tenant, chain: p.chainDigest, policySet: p.policyDigest, interceptors: p.interceptors.length, entry, configInForce: p.chainDigest === server.policy.chainDigest });
  }
  const first = tenants[0];
  return {
    msg: 'vouch ready',
    url: server.url,
    keyId: server.keyId,
    keys: readyKeys(server, opts.tenants),
    mldsa: server.mldsa,
    console: consoleBuilt() ? `${server.url}/audit/` : null,
    config: server.configPath,
    configCreated: opts.configCreated,
    configChain: server.policy.chainDigest,
    policy: first?.chain ?? server.policy.chainDigest,
    interceptors: first?.interceptors ?? server.policy.interceptors.length,
    tenants,
  };
}

/** The keys signing now, by JWKS kid, each with the `name+id` it signs each listed tenant's checkpoints as. */
function readyKeys(server: RunningServer, tenants: string[]): ReadyKey[] {
  const dd = server.dataDir;
  const out: ReadyKey[] = dd.keys.map((k) => ({ alg: k.alg, kid: jwksKid(dd.keyName, k.alg, k.publicKey), checkpoints: [] }));
  for (const t of tenants) {
    const current = dd.keyHistory(t)?.current;
    for (const k of current?.keys ?? []) {
      const kid = jwksKid(dd.keyName, k.alg, k.publicKey);
      let e = out.find((x) => x.alg === k.alg && x.kid === kid);
      if (!e) out.push((e = { alg: k.alg, kid, checkpoints: [] }));
      const label = `${current!.name}+${toHex(noteKeyId(current!.name, k.alg, k.publicKey))}`;
      if (!e.checkpoints.includes(label)) e.checkpoints.push(label);
    }
  }
  return out.filter((k) => k.checkpoints.length > 0 || !tenants.length);
}

/** How to put a config file in force, for a data directory and tenant. */
export function activateHint(config: string, data: string, tenant: string, url: string): string {
  const t = tenant === 'default' ? '' : ` --tenant ${tenant}`;
  return `To put it in force: \`vouch policy activate ${config} --url ${url}\` while the service runs (POST /v1/policy, admin), or stop it and run \`vouch policy activate ${config} --data ${data}${t}\``;
}

/** The ready block (stdout) and the warnings (stderr), as text. */
export function formatReady(r: Ready, data: string): { lines: string[]; warnings: string[] } {
  const lines = [`vouch ready on ${r.url}  key ${r.keyId} (JWKS kid)  policy ${short(r.policy)}  (${r.interceptors} interceptors)`];
  lines.push(`  console  ${r.console ?? 'not built: run `npm run build:web` (npm start builds it), then reload /audit/'}`);
  lines.push(`  signing  ML-DSA-65 ${r.mldsa}`);
  // One key, two ids (C2SP key ids under two names): the JWKS's, and the one verifiers read on checkpoint lines.
  lines.push(`  keys     ${r.keys.map((k) => `${k.alg}: JWKS kid ${k.kid}, in checkpoints ${k.checkpoints.join(', ') || '(no log yet)'}`).join('; ')}`);
  lines.push(`  config   ${r.config}${r.configCreated ? ' (created from the example on this first run: edit it, then restart)' : ''}  chain ${short(r.configChain)}`);
  const warnings: string[] = [];
  for (const t of r.tenants) {
    const from = t.entry ? describeActivation(t.entry) : 'not recorded yet';
    const source = t.configInForce ? `from ${r.config}` : 'pinned, NOT the config file';
    lines.push(`  policy   tenant ${t.tenant}: chain ${short(t.chain)}  policy set ${short(t.policySet)}  ${source}; ${from}`);
    if (!t.configInForce) {
      const entry = t.entry ? `policy entry #${t.entry.seq}${t.entry.by ? ` by ${t.entry.by}` : ''}${t.entry.time ? ` at ${t.entry.time}` : ''}` : 'a policy entry';
      warnings.push(`WARNING: tenant ${t.tenant}: the config file ${r.config} (chain ${short(r.configChain)}) is NOT the policy in force, and edits to it are not used: ${entry} pinned chain ${short(t.chain)}. ${activateHint(r.config, data, t.tenant, r.url)}; or \`vouch policy unpin --data ${data}${t.tenant === 'default' ? '' : ` --tenant ${t.tenant}`}\` so that the next start follows the file. \`vouch policy history\` lists every activation.`);
    }
  }
  if (r.tenants.length === 0) lines.push('  policy   no tenant log yet: each tenant records the config file\'s policy at its first request');
  return { lines, warnings };
}
