// The policy in force on Workers: the resolved config document embedded at build time
// (`npm run build:config`), activated once per isolate with the stateful built-ins' state in
// Durable Objects (state-stores.ts). What cannot run at the edge is refused with a ConfigError
// naming each declaration, at build time and again here, never skipped in silence.
import { activatePolicy, type Activated } from '../decide/index.js';
import { ConfigError, type Issue } from '../errors.js';
import type { StateStores } from '../interceptors/builtin/types.js';
import type { Json } from '../interceptors/types.js';
import { isRemoteDeclaration, resolveConfigDocument, type ResolvedConfig } from '../policy/index.js';

/** Every declaration the Worker cannot honour, as issues (empty: the config runs here). */
export function workerConfigIssues(resolved: ResolvedConfig): Issue[] {
  const issues: Issue[] = [];
  resolved.config.interceptors.forEach((d, i) => {
    if (isRemoteDeclaration(d)) {
      issues.push({ path: `/interceptors/${i}/remote`, message: `${d.name}: remote interceptor servers are not supported on the Workers entry yet (use the Node service)` });
    }
  });
  return issues;
}

/** Why this config cannot run on Workers, as one ConfigError, or nothing. */
export function assertRunsOnWorkers(resolved: ResolvedConfig, where = 'config'): void {
  const issues = workerConfigIssues(resolved);
  if (issues.length) {
    throw new ConfigError('ERR_CONFIG', `${where} cannot run on Cloudflare Workers: ${issues.map((x) => `${x.path}: ${x.message}`).join('; ')}`, issues);
  }
}

/** Resolve and activate an embedded config document, refusing what cannot run on Workers. */
export async function activateWorkerPolicy(document: Json, state: StateStores): Promise<Activated> {
  const resolved = resolveConfigDocument(document);
  assertRunsOnWorkers(resolved);
  // Built-in configs were checked against their JSON Schemas at build time (scripts/build-worker-config.ts).
  return activatePolicy(resolved, { state, remote: 'offline', configSchemas: 'prebuilt' });
}
