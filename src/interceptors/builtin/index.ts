// Every built-in interceptor factory by the name a config's `use` gives it.
import { contentBuiltins } from './_registry-content.js';
import { policyBuiltins } from './_registry-policy.js';
import type { BuiltinFactory } from './types.js';

export const builtinFactories: Readonly<Record<string, BuiltinFactory>> = Object.freeze({ ...contentBuiltins, ...policyBuiltins });
export { createMemoryStateStores } from './state-memory.js';
export type { BuiltinDeps, BuiltinFactory, StateStores, CounterStore, TaintStore, ToolSchemaCache } from './types.js';
