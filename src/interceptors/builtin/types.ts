// Shared contract of the built-in interceptors: the factory signature and the live state
// stores (counters, conversation taint, tool schemas) that only prepare()/commit() may touch. A store
// may answer synchronously (memory, one process) or asynchronously (a Durable Object on Workers).
// Every key a store is given already holds the tenant and the principal (state-scope.ts): the
// stores compare keys, they never decide whose state is whose.
import type { MaybePromise } from '../../maybe-promise.js';
import type { PolicySet } from '../../policy/index.js';
import type { Interceptor, InterceptorDescriptor, Json } from '../types.js';

export { whenAnswered, type MaybePromise } from '../../maybe-promise.js';

/** Fixed-window counters for rate limits. */
export interface CounterStore {
  /** Count one hit for `key` in the window starting at `windowStart` (RFC 3339); returns the count after it. */
  hit(key: string, windowStart: string, windowMs: number): MaybePromise<number>;
}

export interface TaintMatch {
  server: string;
  /** sha256:<hex> of the tainted value, never the value itself (it is a secret). */
  fingerprint: string;
}

/** Values a server returned in a conversation, to catch them flowing to another server. */
export interface TaintStore {
  /** `scope`: the conversation (state-scope.ts conversationScopeOf), tenant and principal included. */
  add(scope: string, server: string, values: string[]): MaybePromise<void>;
  /** Every tainted value of the conversation that occurs in `text`. */
  find(scope: string, text: string): MaybePromise<TaintMatch[]>;
}

export interface ToolSchema {
  name: string;
  inputSchema: Json;
}

/** The inputSchema of each tool as last listed by its server to one principal of one tenant. */
export interface ToolSchemaCache {
  /**
   * Records these tools' schemas for `server` in `scope` (state-scope.ts principalScopeOf),
   * replacing earlier schemas of the same tools there. An upsert, not a replace: listings arrive
   * in pages (cursor), and each caller sees a filtered list.
   */
  set(scope: string, server: string, tools: ToolSchema[]): MaybePromise<void>;
  get(scope: string, server: string, tool: string): MaybePromise<Json | undefined>;
}

export interface StateStores {
  counters: CounterStore;
  taint: TaintStore;
  toolSchemas: ToolSchemaCache;
}

export interface BuiltinDeps {
  policySet?: PolicySet;
  /** Defaults to state.toolSchemas. */
  toolSchemas?: ToolSchemaCache;
  state: StateStores;
}

export interface BuiltinFactoryArgs {
  /** Instance name from the config (what appears in results and entries). */
  name: string;
  /** The `config` block of the declaration, unvalidated: each factory parses its own. */
  config: Json | undefined;
  /** Declaration fields overriding the builtin's defaults (hooks, mode, failOpen, priorityHint). */
  declaration: Partial<InterceptorDescriptor>;
  deps: BuiltinDeps;
}

export type BuiltinFactory = (args: BuiltinFactoryArgs) => Interceptor;
