// NODE-ONLY: read a config file (YAML or JSON) and the Cedar files it names, then resolve it.
// Paths in the config are relative to the config file. Core code uses resolveConfigDocument.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { parseJson, type Json } from '../canonical/index.js';
import { ConfigError, type Issue } from '../errors.js';
import { convertSchemaText } from './cedar-engine.js';
import type { EmbeddedConfig } from './config-embedded.js';
import { expandSettings } from './config-settings.js';
import { parseConfig } from './config.js';
import { buildResolvedDocument, resolveConfigDocument, type ResolvedConfig } from './config-resolve.js';
import { formatOf, parseConfigText } from './config-text.js';
import { PolicyLoadError } from './policy-error.js';
import type { LoadPolicyOptions } from './policy-set.js';
import type { PolicySource } from './types.js';

/** The example config shipped with vouch: the default when a data directory has none. */
export const EXAMPLE_CONFIG = new URL('../../fixtures/config/vouch.example.yaml', import.meta.url);

/** The config a service (or gateway) starts from: <data>/vouch.yaml, else the bundled example. */
export function defaultConfigPath(data: string): string {
  const own = join(data, 'vouch.yaml');
  return existsSync(own) ? own : EXAMPLE_CONFIG.pathname;
}

async function readText(file: string, path: string, issues: Issue[], expand = true): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    issues.push({ path, message: `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}` });
    return undefined;
  }
  if (!expand) return text;
  try {
    return expandSettings(text); // `${VOUCH_NAME:-default}` (config-settings.ts)
  } catch (e) {
    issues.push({ path, message: `${file}: ${(e as Error).message}` });
    return undefined;
  }
}

function readSchema(text: string, file: string, issues: Issue[]): Json | undefined {
  if (/\.json$/i.test(file)) {
    try {
      return parseJson(text) as Json;
    } catch {
      issues.push({ path: '/policies/schema', message: `${file}: not valid JSON` });
      return undefined;
    }
  }
  const converted = convertSchemaText(text); // Cedar schema syntax: stored in its JSON form
  if (converted.ok) return converted.value;
  for (const p of converted.problems) issues.push({ path: '/policies/schema', message: `${file}: ${p.message}` });
  return undefined;
}

/**
 * The files a config file is made of (itself, then the policy files and schema it names, as
 * absolute paths), read without loading the policy: what `vouch serve` watches for edits.
 * A file that does not parse is just itself.
 */
export async function configFilesOf(path: string): Promise<string[]> {
  const file = resolve(path);
  const files = [file];
  try {
    const text = await readText(file, '', []);
    if (text === undefined) return files;
    const p = parseConfig(parseConfigText(text, formatOf(file), file)).policies;
    if (p && 'files' in p) {
      for (const f of p.files) files.push(resolve(dirname(file), f));
      if (p.schema) files.push(resolve(dirname(file), p.schema));
    }
  } catch {
    // a bad file: only the file itself
  }
  return files;
}

/** Rewrite `line N:C` of the joined policy text to the file and line it came from. */
function mapToFiles(e: PolicyLoadError, files: string[], firstLines: number[]): PolicyLoadError {
  return new PolicyLoadError(
    e.issues.map((issue) => {
      const m = /^line (\d+):(\d+): /.exec(issue.message);
      if (!m) return issue;
      const line = Number(m[1]);
      let i = firstLines.length - 1;
      while (i > 0 && firstLines[i] > line) i--;
      return { path: `/policies/files/${i}`, message: `${files[i]} line ${line - firstLines[i] + 1}:${m[2]}: ${issue.message.slice(m[0].length)}` };
    }),
  );
}

export async function loadConfigFile(path: string, opts: LoadPolicyOptions = {}): Promise<ResolvedConfig> {
  const file = resolve(path);
  const issues: Issue[] = [];
  const text = await readText(file, '', issues);
  if (text === undefined) throw new ConfigError('ERR_CONFIG', `cannot read config ${file}: ${issues.map((i) => i.message).join('; ')}`, issues);
  let config;
  try {
    config = parseConfig(parseConfigText(text, formatOf(file), file));
  } catch (e) {
    if (e instanceof ConfigError && !e.message.startsWith(file)) throw new ConfigError('ERR_CONFIG', `${file}: ${e.message}`, e.issues, { cause: e });
    throw e;
  }
  if (!config.policies || 'inline' in config.policies) return resolveConfigDocument(buildResolvedDocument(config, config.policies?.inline ?? { policies: '' }), opts);

  const base = dirname(file);
  const { files, schema: schemaPath } = config.policies;
  // Read side by side, reported in file order (each read pushes its own issues when it fails).
  const perFile = files.map((): Issue[] => []);
  const texts = await Promise.all(files.map((f, i) => readText(resolve(base, f), `/policies/files/${i}`, perFile[i])));
  for (const list of perFile) issues.push(...list);
  let schema: Json | undefined;
  if (schemaPath !== undefined) {
    const schemaFile = resolve(base, schemaPath);
    const schemaText = await readText(schemaFile, '/policies/schema', issues, false);
    if (schemaText !== undefined) schema = readSchema(schemaText, schemaFile, issues);
  }
  if (issues.length > 0) throw new ConfigError('ERR_CONFIG', `${file}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);

  // Files are joined in the order listed, one newline apart; the joined text is what is digested.
  const firstLines: number[] = [];
  let line = 1;
  for (const t of texts as string[]) {
    firstLines.push(line);
    line += t.split('\n').length;
  }
  const source: PolicySource = { policies: (texts as string[]).join('\n'), ...(schema !== undefined && { schema }) };
  try {
    return resolveConfigDocument(buildResolvedDocument(config, source), opts);
  } catch (e) {
    if (e instanceof PolicyLoadError) throw mapToFiles(e, files, firstLines);
    throw e;
  }
}

/**
 * What a Worker carries for a config file (config-embedded.ts): its text and its policy files'
 * texts as they are, settings unexpanded (the Worker expands them from its own bindings), the
 * schema in JSON form. Settings are expanded here only to find the policy files the config names.
 */
export async function readEmbeddedConfig(path: string, source: string, env: Record<string, string | undefined> = process.env): Promise<EmbeddedConfig> {
  const file = resolve(path);
  const issues: Issue[] = [];
  const text = await readText(file, '', issues, false);
  if (text === undefined) throw new ConfigError('ERR_CONFIG', `cannot read config ${file}: ${issues.map((i) => i.message).join('; ')}`, issues);
  const format = formatOf(file);
  const config = parseConfig(parseConfigText(expandSettings(text, env), format, file));
  const out: EmbeddedConfig = { source, format, text };
  if (!config.policies || 'inline' in config.policies) return out;
  const base = dirname(file);
  const texts = await Promise.all(config.policies.files.map((f, i) => readText(resolve(base, f), `/policies/files/${i}`, issues, false)));
  if (config.policies.schema !== undefined) {
    const schemaFile = resolve(base, config.policies.schema);
    const schemaText = await readText(schemaFile, '/policies/schema', issues, false);
    if (schemaText !== undefined) out.schema = readSchema(schemaText, schemaFile, issues);
  }
  if (issues.length > 0) throw new ConfigError('ERR_CONFIG', `${file}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
  out.policies = texts as string[];
  return out;
}
