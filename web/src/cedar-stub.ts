// Stands in for @cedar-policy/cedar-wasm/nodejs in the browser bundle: bundle verification in
// the page checks entries, leaves, root and signatures; replaying Cedar decisions is left to
// `vouch verify` / POST /v1/replay, so any call into the engine says so instead of guessing.
const unavailable = (): never => {
  throw new Error('Cedar is not loaded in the audit console: replay with `vouch verify` or POST /v1/replay');
};
export const getCedarVersion = (): string => 'not-loaded';
export const getCedarLangVersion = (): string => 'not-loaded';
export const statefulIsAuthorized = unavailable;
export const policySetTextToParts = unavailable;
export const policyToJson = unavailable;
export const schemaToJson = unavailable;
export const validate = unavailable;
export const preparsePolicySet = unavailable;
export class Context { constructor() { unavailable(); } }
export class Entities { constructor() { unavailable(); } }
export class Schema { constructor() { unavailable(); } }
