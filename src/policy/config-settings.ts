// Settings in config and policy files: `${VOUCH_NAME:-default}` is replaced by the environment
// variable's value (or the default) when the file is read, so a deployment-specific value (the
// folder file tools may use) is set without editing the policy. The expanded text is what is
// digested and recorded, so replay and bundles see the value that was in force.
import { ConfigError } from '../errors.js';

// Only VOUCH_* names: no other variable of the process (tokens, keys) can be copied into a recorded policy.
const SETTING = /\$\{(VOUCH_[A-Z0-9_]{1,64})(?::-([^}\n]*))?\}/g;
// A value lands inside Cedar string literals and YAML scalars: no quote, backslash, space,
// wildcard or brace can reach them, so a setting cannot add a rule or widen a `like` pattern.
const SAFE_VALUE = /^[A-Za-z0-9._~/:@+=,-]{1,512}$/;

/** The setting names a text reads, sorted, each once. */
export function settingNamesOf(text: string): string[] {
  return [...new Set([...text.matchAll(SETTING)].map((m) => m[1]))].sort();
}

export function expandSettings(text: string, env: Record<string, string | undefined> = process.env): string {
  return text.replace(SETTING, (_all, name: string, fallback: string | undefined) => {
    const value = env[name] !== undefined && env[name] !== '' ? env[name]! : fallback;
    if (value === undefined) throw new ConfigError('ERR_CONFIG', `setting \${${name}} is not set and has no default (write \${${name}:-VALUE})`, [{ path: '', message: `${name} unset` }]);
    if (!SAFE_VALUE.test(value) || value.split('/').includes('..')) {
      throw new ConfigError('ERR_CONFIG', `setting ${name}=${JSON.stringify(value.slice(0, 80))} is refused: letters, digits and . _ ~ / : @ + = , - only, no '..' segment`, [{ path: '', message: `${name} has characters a policy cannot hold safely` }]);
    }
    return value;
  });
}
