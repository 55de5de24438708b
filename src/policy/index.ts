// Public surface of the policy module: Cedar policy sets, the Cedar entity model of MCP
// messages, and the chain config (parse, resolve, digest). Node-only file loading is in
// load-config.ts, imported by its path, not from here.
export type { EntityRef, AuthzRequest, AuthzResult, PolicySource, PolicySet } from './types.js';
export { cedarVersion, cedarLangVersion } from './cedar-engine.js';
export { loadPolicySet, type LoadPolicyOptions } from './policy-set.js';
export { describeEntity, explainDefaultDeny, MAX_HINT_ROLES } from './deny-explain.js';
export { PolicyLoadError } from './policy-error.js';
export { toCedarValue, toCedarRecord, type CedarValue } from './cedar-values.js';
export { resourceOf, argumentsOf, buildAuthzRequest, isPathKey, LIST_TO_CALL, PATH_CHECKED_EVENTS, pathArgumentsOf, type RequestFacts } from './entity-model.js';
export { parseConfig } from './config.js';
export { parseConfigText, formatOf, type ConfigFormat } from './config-text.js';
export { resolveConfigDocument, buildResolvedDocument, type ResolvedConfig } from './config-resolve.js';
export { isRemoteDeclaration, REMOTE_ERAS } from './config-types.js';
export { assertRemotesAllowed, remoteAllowListOf, remoteUrlAllowed, type RemoteAllowList } from './remote-allow.js';
export { descriptorOverridesOf } from './config-declaration.js';
export type { VouchConfig, InterceptorDeclaration, BuiltinDeclaration, RemoteDeclaration, DeclarationOverrides, PolicyConfig, RemoteEra } from './config-types.js';
