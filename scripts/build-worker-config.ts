// npm run build:config [config.yaml] [--out file] [--check] (Node only; also wrangler.toml's
// [build] command, so `wrangler dev` and `wrangler deploy` always embed the config as it is now).
// Embeds a chain config into src/worker/config.generated.json, which the Worker imports: the config
// text and its policy texts as on disk (settings are resolved on the Worker, from its [vars]), the
// schema in JSON form. Which config: the argument, else $VOUCH_CONFIG, else .vouch/vouch.yaml (what
// `vouch init` makes), else the bundled example. A config the Worker cannot run fails here, with
// every reason, and nothing is written. `--check` fails when the generated file is stale.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { activatePolicy } from '../src/decide/index.js';
import { codeOf, ConfigError, publicMessage, type Issue } from '../src/errors.js';
import { createMemoryStateStores } from '../src/interceptors/builtin/index.js';
import { embeddedSettingNames, parseEmbeddedConfig, resolveEmbeddedConfig, settingsOf, type EmbeddedConfig } from '../src/policy/config-embedded.js';
import { isRemoteDeclaration, resolveConfigDocument, type ResolvedConfig } from '../src/policy/index.js';
import { loadConfigFile, readEmbeddedConfig } from '../src/policy/load-config.js';
import { edgeUnreachableReason } from '../src/policy/remote-address.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const WORKER_CONFIG_SOURCE = fileURLToPath(new URL('../fixtures/config/vouch.example.yaml', import.meta.url));
export const WORKER_CONFIG_OUT = fileURLToPath(new URL('../src/worker/config.generated.json', import.meta.url));
/** The config `vouch init` makes (its default data directory), the default when it exists. */
export const INIT_CONFIG = '.vouch/vouch.yaml';

/** The generated file (src/policy/config-embedded.ts). */
export type GeneratedWorkerConfig = EmbeddedConfig;

/** Where the Worker will run: `edge` (deployed) cannot reach loopback or private addresses; `local` (wrangler dev) can. */
export type WorkerTarget = 'edge' | 'local';

export interface CheckOptions {
  target?: WorkerTarget;
}

/** The config to embed: the argument, else $VOUCH_CONFIG, else .vouch/vouch.yaml when it exists, else the example. */
export function workerConfigSource(arg: string | undefined, env: Record<string, string | undefined> = process.env, cwd = ROOT): string {
  const named = arg ?? (env.VOUCH_CONFIG || undefined);
  if (named !== undefined) return isAbsolute(named) ? named : resolve(cwd, named);
  const init = resolve(cwd, INIT_CONFIG);
  return existsSync(init) ? init : WORKER_CONFIG_SOURCE;
}

/**
 * Everything the Worker does with the document at startup, done here, every reason at once:
 * schema-check each built-in's config and activate the chain once (unknown built-ins, bad
 * settings, Cedar errors); for a deployed Worker, a remote interceptor server it cannot reach
 * (loopback, private, link-local) is refused here rather than denying every call once deployed.
 * Remote servers are not called from the build: the Worker connects them (src/worker/policy.ts).
 */
export async function checkWorkerConfig(resolved: ResolvedConfig, where: string, opts: CheckOptions = {}): Promise<void> {
  const issues: Issue[] = [];
  if ((opts.target ?? 'edge') === 'edge') {
    resolved.config.interceptors.forEach((d, i) => {
      if (!isRemoteDeclaration(d)) return;
      const why = edgeUnreachableReason(d.remote.url);
      if (why) issues.push({ path: `/interceptors/${i}/remote/url`, message: `${d.remote.url} is ${why}: a deployed Worker cannot reach it (only \`wrangler dev\` can; give a public URL, or build for wrangler dev with WRANGLER_COMMAND=dev)` });
    });
  }
  try {
    const active = await activatePolicy(resolved, { state: createMemoryStateStores(), remote: 'offline' });
    await active.close();
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    issues.push(...(e.issues?.length ? e.issues : [{ path: '', message: e.message }]));
  }
  if (issues.length) throw new ConfigError('ERR_CONFIG', `${where} cannot run on Cloudflare Workers: ${issues.map((x) => `${x.path}: ${x.message}`).join('; ')}`, issues);
}

/** The settings the build checks with: the build machine's VOUCH_* values, else each setting's default. */
const buildSettings = () => settingsOf(process.env);

/** Check an embedded config as the Worker will run it (settings: the build's values or the defaults). */
async function checkEmbedded(e: EmbeddedConfig, where: string, opts: CheckOptions): Promise<void> {
  const document = resolveEmbeddedConfig(e, buildSettings(), 'the build environment or as a default (${NAME:-VALUE}) so the build can check the config');
  await checkWorkerConfig(resolveConfigDocument(document), where, opts);
}

/** The text of config.generated.json for the config file at `source`. */
export async function renderWorkerConfig(source = WORKER_CONFIG_SOURCE, opts: CheckOptions = {}): Promise<string> {
  await loadConfigFile(source); // every reason by file and line, as Node reports them
  const embedded = await readEmbeddedConfig(source, relative(ROOT, source) || source);
  await checkEmbedded(embedded, source, opts);
  return `${JSON.stringify(embedded, null, 2)}\n`;
}

/** The generated file as it is on disk, checked as the Worker will run it, and current with its source. */
export async function checkGeneratedWorkerConfig(path = WORKER_CONFIG_OUT, opts: CheckOptions = {}): Promise<GeneratedWorkerConfig> {
  const generated = parseEmbeddedConfig(JSON.parse(readFileSync(path, 'utf8')), path);
  await checkEmbedded(generated, `${path} (from ${generated.source})`, opts);
  const source = resolve(ROOT, generated.source);
  if (existsSync(source) && readFileSync(path, 'utf8') !== (await renderWorkerConfig(source, opts))) {
    throw new ConfigError('ERR_CONFIG', `${relative(ROOT, path)} is stale: ${generated.source} (or a policy file it names) changed since it was generated; run npm run build:config ${generated.source} (wrangler dev and wrangler deploy do it through wrangler.toml [build])`, [{ path: '', message: 'stale' }]);
  }
  return generated;
}

/** Write only when the text changed (wrangler dev watches the file), and whole (rename): a concurrent build never reads half. */
export function writeIfChanged(path: string, text: string): boolean {
  if (existsSync(path) && readFileSync(path, 'utf8') === text) return false;
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const args = process.argv.slice(2);
    const at = args.indexOf('--out');
    const out = at >= 0 ? args.splice(at, 2)[1] : WORKER_CONFIG_OUT;
    // wrangler sets WRANGLER_COMMAND for its [build] command: `dev` runs the Worker on this machine.
    const target: WorkerTarget = process.env.WRANGLER_COMMAND === 'dev' ? 'local' : 'edge';
    if (args[0] === '--check') {
      const g = await checkGeneratedWorkerConfig(out, { target });
      console.log(`${relative(ROOT, out)} (from ${g.source}) is current and runs on Workers`);
    } else {
      const source = workerConfigSource(args[0]);
      const text = await renderWorkerConfig(source, { target });
      const changed = writeIfChanged(out, text);
      const names = embeddedSettingNames(JSON.parse(text) as EmbeddedConfig);
      console.log(`${changed ? 'wrote' : 'unchanged'} ${relative(ROOT, out)} from ${relative(ROOT, source) || source}${names.length ? ` (settings ${names.join(', ')}: resolved on the Worker from its vars, else their defaults)` : ''}`);
      // A value set here would silently not be the Worker's: say so (config-embedded.ts).
      const here = names.filter((n) => process.env[n]);
      if (here.length) console.warn(`vouch: note: ${here.join(', ')} set in the build environment is not what the Worker uses: put ${here.length === 1 ? 'it' : 'them'} in wrangler.toml [vars] (the build only checks the config with ${here.length === 1 ? 'it' : 'them'})`);
    }
  } catch (e) {
    console.error(`vouch: ${codeOf(e)}: ${publicMessage(e)}`);
    process.exit(1);
  }
}
