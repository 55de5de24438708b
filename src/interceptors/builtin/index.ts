// Every built-in interceptor factory by the name a config's `use` gives it. Each built
// descriptor also lists the built-in's version, protocol range and config JSON Schema.
import { BUILTIN_COMPAT, BUILTIN_CONFIG_SCHEMAS, BUILTIN_VERSION } from './_config-schemas.js';
import { contentBuiltins } from './_registry-content.js';
import { policyBuiltins } from './_registry-policy.js';
import type { BuiltinFactory } from './types.js';

/** The factory with the SEP-1763 seed extras (version, compat, configSchema) on its descriptor. */
function declared(use: string, factory: BuiltinFactory): BuiltinFactory {
  const schema = BUILTIN_CONFIG_SCHEMAS[use];
  if (!schema) throw new Error(`built-in ${use} has no config schema`);
  return (args) => {
    const ic = factory(args);
    const d = ic.descriptor;
    d.version = BUILTIN_VERSION;
    // The config may narrow the range (declaration.compat); else the built-in's own.
    d.compat = structuredClone(args.declaration.compat ?? BUILTIN_COMPAT);
    d.configSchema = structuredClone(schema);
    return ic;
  };
}

export const builtinFactories: Readonly<Record<string, BuiltinFactory>> = Object.freeze(
  Object.fromEntries(Object.entries({ ...contentBuiltins, ...policyBuiltins }).map(([use, f]) => [use, declared(use, f)])),
);
export { BUILTIN_COMPAT, BUILTIN_CONFIG_SCHEMAS, BUILTIN_VERSION } from './_config-schemas.js';
export { createMemoryStateStores } from './state-memory.js';
export { conversationScopeOf, principalScopeOf } from './state-scope.js';
export type { BuiltinDeps, BuiltinFactory, StateStores, CounterStore, TaintStore, ToolSchemaCache } from './types.js';
export { outputSchemaVerdict, PROVENANCE_FACTS } from './provenance-enricher.js';
