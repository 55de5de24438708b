// The one file of the core that imports @cedar-policy/cedar-wasm. The `nodejs` entry loads the
// wasm synchronously with node:fs; the Workers build aliases that entry to src/worker/cedar-web.ts
// (the `web` entry, initialized from the bundled wasm module), so this file runs unchanged there.
import * as bundled from '@cedar-policy/cedar-wasm/nodejs';
import type { Json } from '../canonical/index.js';

/** The engine's API, as the package exports it. */
export type CedarEngine = typeof bundled;
/** The instance every call below goes to: the one loaded with this module, unless replaced (replaceEngine). */
let cedar: CedarEngine = bundled;
/** Every policy set preparsed into the engine, so that a replacing instance can be given the same. */
const preparsed = new Map<string, Record<string, string>>();

/** Version of the Cedar engine, recorded in entries: replay needs the same evaluator. */
export const cedarVersion: string = cedar.getCedarVersion();
/** Version of the Cedar language the engine implements. */
export const cedarLangVersion: string = cedar.getCedarLangVersion();

/** One engine diagnostic, flattened: where (offset into the text it came from) and what. */
export interface EngineProblem {
  message: string;
  policyId?: string;
  offset?: number;
}

export type EngineAnswer<T> = { ok: true; value: T } | { ok: false; problems: EngineProblem[] };

interface DetailedErrorLike {
  message: string;
  help?: string | null;
  sourceLocations?: { start: number }[];
}

function toProblem(e: DetailedErrorLike, policyId?: string): EngineProblem {
  const message = e.help ? `${e.message} (${e.help})` : e.message;
  const offset = e.sourceLocations?.[0]?.start;
  return { message, ...(policyId !== undefined && { policyId }), ...(offset !== undefined && { offset }) };
}

/** The engine throws on calls it cannot decode; we turn every throw into a problem. */
function guard<T>(f: () => EngineAnswer<T>): EngineAnswer<T> {
  try {
    return f();
  } catch (e) {
    return { ok: false, problems: [{ message: e instanceof Error ? e.message : String(e) }] };
  }
}

/** Split Cedar text into the text of each static policy; templates are reported apart. */
export function splitPolicyText(text: string): EngineAnswer<{ policies: string[]; templates: string[] }> {
  return guard(() => {
    const a = cedar.policySetTextToParts(text);
    if (a.type === 'failure') return { ok: false, problems: a.errors.map((e) => toProblem(e)) };
    return { ok: true, value: { policies: a.policies, templates: a.policy_templates } };
  });
}

/** The annotations of one policy (where `@id("...")` lives). */
export function readAnnotations(policyText: string): EngineAnswer<Record<string, string>> {
  return guard(() => {
    const a = cedar.policyToJson(policyText);
    if (a.type === 'failure') return { ok: false, problems: a.errors.map((e) => toProblem(e)) };
    return { ok: true, value: Object.fromEntries(Object.entries(a.json.annotations ?? {})) };
  });
}

/** The JSON form (EST) of one policy: its scope, conditions and annotations. */
export function policyJson(policyText: string): EngineAnswer<unknown> {
  return guard(() => {
    const a = cedar.policyToJson(policyText);
    if (a.type === 'failure') return { ok: false, problems: a.errors.map((e) => toProblem(e)) };
    return { ok: true, value: a.json };
  });
}

/** Cedar schema text (`.cedarschema`) to the JSON schema form, so documents and digests hold one form. */
export function convertSchemaText(text: string): EngineAnswer<Json> {
  return guard(() => {
    const a = cedar.schemaToJson(text);
    if (a.type === 'failure') return { ok: false, problems: a.errors.map((e) => toProblem(e)) };
    return { ok: true, value: a.json as unknown as Json };
  });
}

/** Strict validation of policies against a schema (JSON or Cedar text). */
export function validatePolicies(policies: Record<string, string>, schema: Json): EngineAnswer<null> {
  return guard(() => {
    const a = cedar.validate({ schema: schema as bundled.Schema, policies: { staticPolicies: policies } });
    if (a.type === 'failure') return { ok: false, problems: a.errors.map((e) => toProblem(e)) };
    if (a.validationErrors.length === 0) return { ok: true, value: null };
    return { ok: false, problems: a.validationErrors.map((v) => toProblem(v.error, v.policyId)) };
  });
}

/** Parse once and cache in the engine under `id` (content-addressed, so re-caching is harmless). */
export function preparsePolicies(id: string, policies: Record<string, string>): EngineAnswer<null> {
  return guard(() => {
    const a = cedar.preparsePolicySet(id, { staticPolicies: policies });
    if (a.type === 'failure') return { ok: false, problems: a.errors.map((e) => toProblem(e)) };
    preparsed.set(id, policies);
    return { ok: true, value: null };
  });
}

/**
 * Route every later call to `next`, another instance of this same engine (same version), after
 * preparsing in it every policy set the current one holds. A Node process uses it once start-up is
 * over (policy/engine-refresh.ts): the new instance's WebAssembly gets V8's normal tiering budget
 * where start-up's had a large one. Nothing changes if `next` is another version or refuses any
 * set: the decisions of an instance are the engine's, so both give the same answers.
 */
export function replaceEngine(next: CedarEngine): boolean {
  try {
    if (next.getCedarVersion() !== cedarVersion || next.getCedarLangVersion() !== cedarLangVersion) return false;
    for (const [id, policies] of preparsed) if (next.preparsePolicySet(id, { staticPolicies: policies }).type !== 'success') return false;
  } catch {
    return false;
  }
  cedar = next;
  return true;
}

export interface EngineEntity {
  uid: { type: string; id: string };
  attrs: Record<string, unknown>;
  parents: { type: string; id: string }[];
}

export interface EngineRequest {
  principal: { type: string; id: string };
  action: { type: string; id: string };
  resource: { type: string; id: string };
  /** Already in Cedar JSON value form (see cedar-values.ts). */
  context: Record<string, unknown>;
  entities: EngineEntity[];
}

export interface EngineDecision {
  decision: 'allow' | 'deny';
  reasons: string[];
  errors: string[];
}

/** Authorize against a preparsed policy set. Request-level failures come back as problems. */
export function authorizePreparsed(policySetId: string, req: EngineRequest): EngineAnswer<EngineDecision> {
  return guard(() => {
    const a = cedar.statefulIsAuthorized({
      principal: req.principal,
      action: req.action,
      resource: req.resource,
      context: req.context as bundled.Context,
      entities: req.entities as bundled.Entities,
      preparsedPolicySetId: policySetId,
    });
    if (a.type === 'failure') return { ok: false, problems: a.errors.map((e) => toProblem(e)) };
    const d = a.response;
    return {
      ok: true,
      value: {
        decision: d.decision,
        reasons: [...d.diagnostics.reason],
        errors: d.diagnostics.errors.map((e) => `${e.policyId}: ${toProblem(e.error).message}`),
      },
    };
  });
}
