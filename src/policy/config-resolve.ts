// The resolved config document: the config with its policy text and schema inlined, so it can
// be stored by digest and rebuilt later (replay, audit bundles) without any file.
import { digestJson, type Digest, type Json } from '../canonical/index.js';
import { ConfigError } from '../errors.js';
import { parseConfig } from './config.js';
import type { VouchConfig } from './config-types.js';
import { loadPolicySet, type LoadPolicyOptions } from './policy-set.js';
import type { PolicySet, PolicySource } from './types.js';

export interface ResolvedConfig {
  /** The config as resolved: `policies` is always `{inline: policySource}`. */
  config: VouchConfig;
  /** digestJson(resolved): names the whole chain config, policy text included. */
  chainDigest: Digest;
  /** The policy text and schema; `{policies: ""}` (deny everything) when the config has none. */
  policySource: PolicySource;
  /** digestJson(policySource), equal to policySet.digest. */
  policyDigest: Digest;
  /** Parsed, validated and preparsed once. */
  policySet: PolicySet;
  /** The self-contained document, as stored. */
  resolved: Json;
}

/** The resolved document for a parsed config and the policy source read for it. */
export function buildResolvedDocument(config: VouchConfig, source: PolicySource): Json {
  const inline: PolicySource = source.schema === undefined ? { policies: source.policies } : { policies: source.policies, schema: source.schema };
  return JSON.parse(JSON.stringify({ ...config, policies: { inline } })) as Json;
}

/**
 * Rebuild everything from a stored resolved document: no file access. Throws ConfigError
 * (ERR_CONFIG) for a bad document, PolicyLoadError (ERR_POLICY) for a bad policy set.
 */
export function resolveConfigDocument(resolved: Json, opts: LoadPolicyOptions = {}): ResolvedConfig {
  const parsed = parseConfig(resolved);
  if (parsed.policies && 'files' in parsed.policies) {
    throw new ConfigError('ERR_CONFIG', 'a resolved config inlines its policies; policies.files needs loadConfigFile', [
      { path: '/policies/files', message: 'not allowed in a resolved document' },
    ]);
  }
  const policySource: PolicySource = parsed.policies?.inline ?? { policies: '' };
  const document = buildResolvedDocument(parsed, policySource);
  const policySet = loadPolicySet(policySource, opts);
  return {
    config: parseConfig(document),
    chainDigest: digestJson(document),
    policySource: policySet.source,
    policyDigest: policySet.digest,
    policySet,
    resolved: document,
  };
}
