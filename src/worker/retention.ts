// Payload retention on Workers (docs/retention.md): the policy from the VOUCH_RETENTION var (the
// JSON of Node's retention file, parsed by the same code), and the pass the tenant log object's
// alarm runs every `everyMinutes`: audit/retention.ts over the object's own log, off the decision
// path. Its outcome goes to Workers Logs as Node's lines.
import { parseRetentionPolicy, retentionDaysOf, retentionTargetOf, runRetention, type RetentionPolicy, type RetentionRun } from '../audit/index.js';
import { parseJson } from '../canonical/index.js';
import { ConfigError } from '../errors.js';
import type { LogPort } from '../store/log-port.js';
import type { WorkerEnv } from './env.js';

/** The var's policy, or undefined when payloads are kept; a bad value is ERR_CONFIG naming the var. */
export function retentionOf(env: Pick<WorkerEnv, 'VOUCH_RETENTION'>): RetentionPolicy | undefined {
  const text = env.VOUCH_RETENTION;
  if (text === undefined || text.trim() === '') return undefined;
  let doc: unknown;
  try {
    doc = parseJson(text);
  } catch (e) {
    throw new ConfigError('ERR_CONFIG', `var VOUCH_RETENTION is not JSON: ${(e as Error).message}`, [{ path: '/VOUCH_RETENTION', message: 'not JSON' }]);
  }
  try {
    return parseRetentionPolicy(doc);
  } catch (e) {
    throw new ConfigError('ERR_CONFIG', `var VOUCH_RETENTION: ${(e as Error).message}`, (e as ConfigError).issues ?? []);
  }
}

/**
 * One pass over one tenant's log, as Node's schedule runs it: undefined when the policy keeps this
 * tenant's payloads or the pass failed (logged; the next pass tries again, as on Node).
 */
export async function retentionPass(o: { tenant: string; port: LogPort; policy: RetentionPolicy; now: string }): Promise<RetentionRun | undefined> {
  const days = retentionDaysOf(o.policy, o.tenant);
  if (days === undefined) return undefined;
  try {
    const run = await runRetention(retentionTargetOf(o.port), { days, now: o.now });
    if (run.seqs.length) console.log(JSON.stringify({ level: 'info', msg: 'payload retention', tenant: o.tenant, erased: run.erased, entries: run.seqs, cutoff: run.cutoff, more: run.more }));
    return run;
  } catch (e) {
    console.error(JSON.stringify({ level: 'error', msg: 'payload retention failed (tried again at the next pass)', tenant: o.tenant, code: (e as { code?: string }).code, error: (e as Error).message }));
    return undefined;
  }
}
