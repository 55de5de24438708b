// The policy in force on Workers: the resolved config document embedded at build time
// (`npm run build:config`), activated once per isolate. What cannot run correctly at the edge is
// refused with a ConfigError naming each declaration, never skipped in silence.
import { activatePolicy, type Activated } from '../activate.js';
import { ConfigError, type Issue } from '../errors.js';
import { createMemoryStateStores } from '../interceptors/builtin/index.js';
import type { Json } from '../interceptors/types.js';
import { isRemoteDeclaration, resolveConfigDocument, type ResolvedConfig } from '../policy/index.js';

/**
 * Built-ins that cannot run on the Worker, and why. The Worker is stateless (many isolates, each
 * with its own memory), so interceptors whose decision depends on earlier requests would see a
 * fraction of them; schema-guard compiles JSON Schemas with ajv, which generates code with
 * `new Function`, and workerd forbids code generation.
 */
export const UNSUPPORTED_ON_WORKERS: Readonly<Record<string, string>> = Object.freeze({
  'schema-guard': 'compiles JSON Schemas with ajv (code generation, forbidden in workerd); it also needs the tool schemas listed earlier, which a stateless isolate does not have',
  'rate-limit': 'counts hits across requests; per-isolate memory on Workers would count only a fraction of them',
  'cross-boundary-guard': 'follows secrets across the requests of a session; per-isolate memory on Workers would miss most of them',
});

/** Every declaration the Worker cannot honour, as issues (empty: the config runs here). */
export function workerConfigIssues(resolved: ResolvedConfig): Issue[] {
  const issues: Issue[] = [];
  resolved.config.interceptors.forEach((d, i) => {
    if (isRemoteDeclaration(d)) {
      issues.push({ path: `/interceptors/${i}/remote`, message: `${d.name}: remote interceptor servers are not supported on the Workers entry yet (use the Node service)` });
      return;
    }
    const why = UNSUPPORTED_ON_WORKERS[d.use];
    if (why) issues.push({ path: `/interceptors/${i}/use`, message: `${d.name}: ${d.use} is not available on Cloudflare Workers: it ${why}` });
  });
  return issues;
}

/** Resolve and activate an embedded config document, refusing what cannot run on Workers. */
export async function activateWorkerPolicy(document: Json): Promise<Activated> {
  const resolved = resolveConfigDocument(document);
  const issues = workerConfigIssues(resolved);
  if (issues.length) {
    throw new ConfigError('ERR_CONFIG', `config cannot run on Cloudflare Workers: ${issues.map((x) => `${x.path}: ${x.message}`).join('; ')}`, issues);
  }
  // Built-in configs were checked against their JSON Schemas at build time (scripts/build-worker-config.ts).
  return activatePolicy(resolved, { state: createMemoryStateStores(), remote: 'offline', configSchemas: 'prebuilt' });
}
