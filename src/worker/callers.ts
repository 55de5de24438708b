// Caller co-signing on Workers (Node's `--callers FILE`, `--require-caller-signature`): the caller
// keys from the VOUCH_CALLERS var (the callers file's JSON, {"<tenant>": JWKS}, parsed by the same
// code) and VOUCH_REQUIRE_CALLER_SIGNATURE. Verification is the shared core's (decide/precheck.ts).
import { parseJson } from '../canonical/index.js';
import type { PublicKeyEntry } from '../crypto/index.js';
import { ConfigError } from '../errors.js';
import { parseCallerKeys } from '../receipt/index.js';
import type { WorkerEnv } from './env.js';

export interface WorkerCallers {
  callerKeys(tenant: string): Promise<PublicKeyEntry[]>;
  requireCallerSignature: boolean;
}

/** Undefined when neither var is set; ERR_CONFIG naming the var when one cannot be used. */
export function callersOf(env: Pick<WorkerEnv, 'VOUCH_CALLERS' | 'VOUCH_REQUIRE_CALLER_SIGNATURE'>): WorkerCallers | undefined {
  const text = env.VOUCH_CALLERS?.trim() ?? '';
  const flag = env.VOUCH_REQUIRE_CALLER_SIGNATURE?.trim() ?? '';
  if (!['', 'true', 'false', '1', '0'].includes(flag)) throw new ConfigError('ERR_CONFIG', `var VOUCH_REQUIRE_CALLER_SIGNATURE must be true or false, not ${JSON.stringify(flag.slice(0, 40))}`);
  const required = flag === 'true' || flag === '1';
  let callers: Record<string, PublicKeyEntry[]> = {};
  if (text !== '') {
    try {
      callers = parseCallerKeys(parseJson(text));
    } catch (e) {
      throw new ConfigError('ERR_CONFIG', `var VOUCH_CALLERS (JSON {"<tenant>": JWKS}): ${(e as Error).message}`, (e as ConfigError).issues ?? []);
    }
  }
  if (required && Object.values(callers).every((keys) => keys.length === 0)) {
    throw new ConfigError('ERR_CONFIG', 'VOUCH_REQUIRE_CALLER_SIGNATURE needs caller keys (var VOUCH_CALLERS): without them every request would be denied');
  }
  if (text === '' && !required) return undefined;
  return { callerKeys: async (tenant) => (Object.hasOwn(callers, tenant) ? callers[tenant] : []), requireCallerSignature: required };
}
