// The config a Worker carries (scripts/build-worker-config.ts writes it, src/worker/ reads it): the
// config text and its policy texts as they are on disk, settings (`${VOUCH_NAME:-default}`) not yet
// expanded, so they are resolved where the Worker runs, from its own bindings ([vars]), as Node
// resolves them from its environment when it reads the files. Pure: no file, no process.env.
import { ConfigError, type Issue } from '../errors.js';
import type { Json } from '../canonical/index.js';
import { buildResolvedDocument } from './config-resolve.js';
import { expandSettings, settingNamesOf } from './config-settings.js';
import { formatOf, parseConfigText, type ConfigFormat } from './config-text.js';
import { parseConfig } from './config.js';

export interface EmbeddedConfig {
  /** The config file it was built from, relative to the project (said in errors and logs). */
  source: string;
  format: ConfigFormat;
  /** The config file's text, settings unexpanded. */
  text: string;
  /** The text of each file of `policies.files`, in order, settings unexpanded (absent with inline policies). */
  policies?: string[];
  /** The Cedar schema in its JSON form (schema files are read without settings, as on Node). */
  schema?: Json;
}

/**
 * Names a Worker binds for itself: never a setting, so no config can copy a signing key or the
 * auth config into a recorded policy (the value check would refuse most of them anyway).
 */
const RESERVED = /^VOUCH_(SIGNING_KEY|ED25519_KEY|AUTH|KEY_NAME|LOG|STATE)(_|$)|KEY$|SECRET|TOKEN|PASSWORD/;

export function isReservedSetting(name: string): boolean {
  return RESERVED.test(name);
}

/** The settings a config reads (config text and policy texts), sorted. */
export function embeddedSettingNames(e: EmbeddedConfig): string[] {
  return [...new Set([e.text, ...(e.policies ?? [])].flatMap(settingNamesOf))].sort();
}

/** From a binding or environment object: the VOUCH_* string values a config may read as settings. */
export function settingsOf(env: object): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (k.startsWith('VOUCH_') && typeof v === 'string' && !isReservedSetting(k)) out[k] = v;
  return out;
}

/** A resolved document (what tests and the bench hand a Worker) as an embedded config. */
export function embeddedOfDocument(document: Json, source = 'resolved config document'): EmbeddedConfig {
  return { source, format: 'json', text: JSON.stringify(document) };
}

/** Checks the shape of an embedded config (the generated file may be hand-edited or old). */
export function parseEmbeddedConfig(input: unknown, where: string): EmbeddedConfig {
  const o = input as Partial<EmbeddedConfig> | null;
  const issues: Issue[] = [];
  if (typeof o !== 'object' || o === null) issues.push({ path: '', message: 'not an object' });
  else {
    if (typeof o.source !== 'string') issues.push({ path: '/source', message: 'must be a string' });
    if (o.format !== 'yaml' && o.format !== 'json') issues.push({ path: '/format', message: 'must be yaml or json' });
    if (typeof o.text !== 'string') issues.push({ path: '/text', message: 'must be a string (the config text)' });
    if (o.policies !== undefined && (!Array.isArray(o.policies) || o.policies.some((t) => typeof t !== 'string'))) issues.push({ path: '/policies', message: 'must be a list of policy texts' });
  }
  if (issues.length) {
    throw new ConfigError('ERR_CONFIG', `${where} is not an embedded config (${issues.map((i) => `${i.path || '/'}: ${i.message}`).join('; ')}): regenerate it with npm run build:config`, issues);
  }
  return o as EmbeddedConfig;
}

/**
 * The resolved document (policy text and schema inlined) for these settings: each setting
 * expanded in the config text and the policy texts exactly as loadConfigFile expands it on Node.
 * A setting with no value and no default is ERR_CONFIG naming where to set it (`where`).
 */
export function resolveEmbeddedConfig(e: EmbeddedConfig, settings: Record<string, string | undefined>, where = 'the environment'): Json {
  const expand = (text: string, path: string) => {
    try {
      return expandSettings(text, settings);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      throw new ConfigError('ERR_CONFIG', `${e.source}${path}: ${err.message}; set it in ${where}`, (err.issues ?? []).map((i) => ({ path, message: i.message })), { cause: err });
    }
  };
  const config = parseConfig(parseConfigText(expand(e.text, ''), e.format ?? formatOf(e.source), e.source));
  if (!config.policies || 'inline' in config.policies) return buildResolvedDocument(config, config.policies?.inline ?? { policies: '' });
  const texts = (e.policies ?? []).map((t, i) => expand(t, `/policies/files/${i}`));
  if (texts.length !== config.policies.files.length) {
    throw new ConfigError('ERR_CONFIG', `${e.source}: the config names ${config.policies.files.length} policy files, the build embedded ${texts.length}: regenerate it with npm run build:config`, [{ path: '/policies/files', message: 'count differs from the embedded texts' }]);
  }
  return buildResolvedDocument(config, { policies: texts.join('\n'), ...(e.schema !== undefined && { schema: e.schema }) });
}
