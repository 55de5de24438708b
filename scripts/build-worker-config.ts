// npm run build:config (Node only): resolve the Worker's chain config (policy text and schema
// inlined) into src/worker/config.generated.json, which the Worker imports. The file is
// committed; test/workers/config.test.ts fails when it is stale.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigError, type Issue } from '../src/errors.js';
import { builtinConfigIssues } from '../src/interceptors/builtin/_config-validate.js';
import { isRemoteDeclaration } from '../src/policy/index.js';
import { loadConfigFile } from '../src/policy/load-config.js';

export const WORKER_CONFIG_SOURCE = fileURLToPath(new URL('../fixtures/config/vouch.worker.yaml', import.meta.url));
export const WORKER_CONFIG_OUT = fileURLToPath(new URL('../src/worker/config.generated.json', import.meta.url));

/** The text of config.generated.json for the config file at `source`. */
export async function renderWorkerConfig(source = WORKER_CONFIG_SOURCE): Promise<string> {
  const resolved = await loadConfigFile(source);
  // The Worker cannot run ajv (code generation): each built-in's config is checked against its
  // JSON Schema here, so a config.generated.json exists only for a config that passes.
  const issues: Issue[] = [];
  resolved.config.interceptors.forEach((d, i) => {
    if (!isRemoteDeclaration(d)) issues.push(...builtinConfigIssues(d.use, d.config, `/interceptors/${i}/config`));
  });
  if (issues.length) throw new ConfigError('ERR_CONFIG', `${source}: ${issues.map((x) => `${x.path}: ${x.message}`).join('; ')}`, issues);
  return `${JSON.stringify(resolved.resolved, null, 2)}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const source = process.argv[2] ?? WORKER_CONFIG_SOURCE;
  writeFileSync(WORKER_CONFIG_OUT, await renderWorkerConfig(source));
  console.log(`wrote ${WORKER_CONFIG_OUT} from ${source}`);
}
