// The state stores the stateful built-ins use on Workers: each call is an RPC to a VouchState
// Durable Object, named so that load spreads (a counter key, a session, a server per object) and
// every isolate reaches the same object. Stubs are made per call: none crosses requests.
import type { StateStores } from '../interceptors/builtin/types.js';
import type { WorkerEnv } from './env.js';
import type { StateObjectRpc } from './state-object.js';

/** The object's name for each kind of state (the key already holds the tenant where it must). */
export const stateObjectName = {
  counter: (key: string) => `rate\u0000${key}`,
  taint: (session: string) => `taint\u0000${session}`,
  schemas: (server: string) => `schemas\u0000${server}`,
};

export function durableStateStores(env: Pick<WorkerEnv, 'VOUCH_STATE'>): StateStores {
  const ns = env.VOUCH_STATE;
  const stub = (name: string) => ns.get(ns.idFromName(name)) as unknown as StateObjectRpc;
  return {
    counters: { hit: (key, windowStart) => stub(stateObjectName.counter(key)).hit(key, windowStart) },
    taint: {
      add: (session, server, values) => stub(stateObjectName.taint(session)).taintAdd(session, server, values),
      find: (session, text) => stub(stateObjectName.taint(session)).taintFind(session, text),
    },
    toolSchemas: {
      set: (server, tools) => stub(stateObjectName.schemas(server)).schemaSet(server, tools),
      get: (server, tool) => stub(stateObjectName.schemas(server)).schemaGet(server, tool),
    },
  };
}
