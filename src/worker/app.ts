// The Worker's app: the same createApp(deps) as Node. Decisions are made here, statelessly;
// the tenant's log object (remote-log.ts) only appends and reads. Built once per isolate.
import { canonicalBytes } from '../canonical/index.js';
import { systemClock } from '../clock.js';
import { ConfigError } from '../errors.js';
import { createApp, type VouchApp } from '../http/app.js';
import { createAuthenticator, parseAuthConfig } from '../http/auth.js';
import { protectedResourceOf } from '../http/oauth-metadata.js';
import type { Json } from '../interceptors/types.js';
import type { LogPort } from '../store/log-port.js';
import { keyNameOf, originOf, type WorkerEnv } from './env.js';
import { readPublicKeys } from './keys.js';
import type { LogObjectRpc } from './log-object.js';
import { activateWorkerPolicy, type WorkerPolicy, type WorkerPolicyOptions } from './policy.js';
import { remoteLogPort } from './remote-log.js';
import { durableStateStores } from './state-stores.js';
import { unwrapResult } from './rpc-result.js';

export interface WorkerApp extends VouchApp {
  /** The policy in force, read per request (it changes only while an interceptor server is unreachable). */
  policy: WorkerPolicy;
}

function parseAuthVar(text: string | undefined) {
  if (text === undefined || text === '') return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ConfigError('ERR_CONFIG', 'var VOUCH_AUTH is not JSON', [{ path: '/VOUCH_AUTH', message: 'not JSON' }]);
  }
  return parseAuthConfig(json, '/VOUCH_AUTH');
}

/** Build the app for these bindings and this resolved config document. */
export async function buildWorkerApp(env: WorkerEnv, configDocument: Json, opts: WorkerPolicyOptions = {}): Promise<WorkerApp> {
  const keys = readPublicKeys(env);
  const auth = parseAuthVar(env.VOUCH_AUTH);
  const policy = await activateWorkerPolicy(configDocument, durableStateStores(env), opts);
  // The same config document, digests and engines whichever chain is current (see policy.ts).
  const first = await policy.current();
  const activation = {
    chain: first.chainDigest,
    policySet: first.policyDigest,
    chainBytes: canonicalBytes(first.resolved.resolved),
    policyBytes: canonicalBytes(first.resolved.policySource),
    engines: first.engines,
  };
  // The policy in force is recorded in each tenant's log before the first decision an isolate
  // sends it (the object dedups, so concurrent first requests append one `policy` entry). Only
  // finished activations are remembered, and stubs are made per request: no promise or RPC
  // stub crosses from one request to another.
  const stubOf = (tenant: string) => env.VOUCH_LOG.get(env.VOUCH_LOG.idFromName(tenant)) as unknown as LogObjectRpc;
  const activated = new Set<string>();
  const logs = async (tenant: string): Promise<LogPort> => {
    const origin = originOf(keyNameOf(env), tenant);
    const stub = stubOf(tenant);
    if (!activated.has(tenant)) {
      unwrapResult(await stub.activate(tenant, { ...activation, time: systemClock.isoNow() }));
      activated.add(tenant);
    }
    return remoteLogPort(stub, tenant, origin);
  };
  const app = createApp({
    logs,
    policy: () => policy.current(),
    health: () => policy.health(),
    authenticate: auth && createAuthenticator(auth, () => systemClock.now()),
    protectedResource: auth && protectedResourceOf(auth),
    keys: { jwks: keys.jwks, vkeys: keys.vkeys, keyId: keys.keyId },
    clock: systemClock,
    logLine: (line) => console.log(JSON.stringify(line)),
  });
  return { ...app, policy };
}
