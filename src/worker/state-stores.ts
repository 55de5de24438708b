// The state stores the stateful built-ins use on Workers: each call is an RPC to a VouchState
// Durable Object, named so that load spreads (a counter key, a conversation, a principal's server
// per object) and every isolate reaches the same object. Stubs are made per call: none crosses
// requests. Every key holds the tenant and the principal (state-scope.ts), so no object is shared
// by two tenants or two principals.
import type { StateStores } from '../interceptors/builtin/types.js';
import type { WorkerEnv } from './env.js';
import type { StateObjectRpc } from './state-object.js';

/**
 * The object's name for each kind of state (each key already holds the tenant and principal).
 * Tool schemas moved to objects named `tool-schemas` when they became per principal (issue 38):
 * the objects named `schemas` by server alone, shared by every tenant, are never reached again.
 */
export const stateObjectName = {
  counter: (key: string) => `rate\u0000${key}`,
  taint: (scope: string) => `taint\u0000${scope}`,
  schemas: (scope: string, server: string) => `tool-schemas\u0000${JSON.stringify([scope, server])}`,
};

export function durableStateStores(env: Pick<WorkerEnv, 'VOUCH_STATE'>): StateStores {
  const ns = env.VOUCH_STATE;
  const stub = (name: string) => ns.get(ns.idFromName(name)) as unknown as StateObjectRpc;
  return {
    counters: { hit: (key, windowStart) => stub(stateObjectName.counter(key)).hit(key, windowStart) },
    taint: {
      add: (scope, server, values) => stub(stateObjectName.taint(scope)).taintAdd(scope, server, values),
      find: (scope, text) => stub(stateObjectName.taint(scope)).taintFind(scope, text),
    },
    toolSchemas: {
      set: (scope, server, tools) => stub(stateObjectName.schemas(scope, server)).schemaSet(scope, server, tools),
      get: (scope, server, tool) => stub(stateObjectName.schemas(scope, server)).schemaGet(scope, server, tool),
    },
  };
}
