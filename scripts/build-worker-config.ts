// npm run build:config [config.yaml] [--out file] (Node only): resolve a chain config (policy text
// and schema inlined) into src/worker/config.generated.json, which the Worker imports. The same
// config Node runs (default: fixtures/config/vouch.example.yaml), with every built-in and any remote
// interceptor server. A config the Worker cannot run fails here, with every reason, not at the
// first request. `--check` re-checks the generated file (build:worker runs it first).
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { activatePolicy } from '../src/decide/index.js';
import { codeOf, ConfigError, publicMessage, type Issue } from '../src/errors.js';
import { createMemoryStateStores } from '../src/interceptors/builtin/index.js';
import type { Json } from '../src/interceptors/types.js';
import { resolveConfigDocument, type ResolvedConfig } from '../src/policy/index.js';
import { loadConfigFile } from '../src/policy/load-config.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const WORKER_CONFIG_SOURCE = fileURLToPath(new URL('../fixtures/config/vouch.example.yaml', import.meta.url));
export const WORKER_CONFIG_OUT = fileURLToPath(new URL('../src/worker/config.generated.json', import.meta.url));

/** The generated file: the resolved document and the config file it came from (relative to the repo). */
export interface GeneratedWorkerConfig {
  source: string;
  config: Json;
}

/**
 * Everything the Worker does with the document at startup, done here, every reason at once:
 * schema-check each built-in's config (the Worker cannot run ajv) and activate the chain once
 * (unknown built-ins, bad settings, Cedar errors). Remote interceptor servers are not called from
 * the build: the Worker connects them when an isolate starts (src/worker/policy.ts).
 */
export async function checkWorkerConfig(resolved: ResolvedConfig, where: string): Promise<void> {
  const issues: Issue[] = [];
  try {
    const active = await activatePolicy(resolved, { state: createMemoryStateStores(), remote: 'offline' });
    await active.close();
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    issues.push(...(e.issues?.length ? e.issues : [{ path: '', message: e.message }]));
  }
  if (issues.length) throw new ConfigError('ERR_CONFIG', `${where} cannot run on Cloudflare Workers: ${issues.map((x) => `${x.path}: ${x.message}`).join('; ')}`, issues);
}

/** The text of config.generated.json for the config file at `source`. */
export async function renderWorkerConfig(source = WORKER_CONFIG_SOURCE): Promise<string> {
  const resolved = await loadConfigFile(source);
  await checkWorkerConfig(resolved, source);
  const out: GeneratedWorkerConfig = { source: relative(ROOT, source), config: resolved.resolved };
  return `${JSON.stringify(out, null, 2)}\n`;
}

/** The generated file as it is on disk, checked as the Worker will run it. */
export async function checkGeneratedWorkerConfig(path = WORKER_CONFIG_OUT): Promise<GeneratedWorkerConfig> {
  const generated = JSON.parse(readFileSync(path, 'utf8')) as GeneratedWorkerConfig;
  await checkWorkerConfig(resolveConfigDocument(generated.config), `${path} (from ${generated.source})`);
  return generated;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const args = process.argv.slice(2);
    const at = args.indexOf('--out');
    const out = at >= 0 ? args.splice(at, 2)[1] : WORKER_CONFIG_OUT;
    if (args[0] === '--check') {
      const g = await checkGeneratedWorkerConfig(out);
      console.log(`${relative(ROOT, out)} (from ${g.source}) runs on Workers`);
    } else {
      const source = args[0] ?? WORKER_CONFIG_SOURCE;
      writeFileSync(out, await renderWorkerConfig(source));
      console.log(`wrote ${out} from ${source}`);
    }
  } catch (e) {
    console.error(`vouch: ${codeOf(e)}: ${publicMessage(e)}`);
    process.exit(1);
  }
}
