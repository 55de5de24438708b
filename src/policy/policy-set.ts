// loadPolicySet: parse Cedar text once, validate it against the schema, preparse it in the
// engine under its digest, and authorize requests against it. Default deny; any evaluation
// error denies (fail closed), even where Cedar itself would skip the erroring policy.
import { digestJson, type Json } from '../canonical/index.js';
import type { Issue } from '../errors.js';
import { annotationsOf } from './annotations.js';
import { authorizePreparsed, policyJson, preparsePolicies, splitPolicyText, validatePolicies, type EngineEntity, type EngineProblem } from './cedar-engine.js';
import { toCedarRecord, type CedarValue } from './cedar-values.js';
import { addPolicyNeeds, emptyNeeds, projectContext, type ContextNeeds } from './context-needs.js';
import { recallDecision, rememberDecision } from './decision-memo.js';
import { rolesNamedIn } from './deny-explain.js';
import { PolicyLoadError } from './policy-error.js';
import { actionEntitiesOf } from './schema-actions.js';
import type { AuthzRequest, AuthzResult, EntityRef, PolicySet, PolicySource } from './types.js';

/** Line and column (1-based) of a character offset, for messages a policy author can act on. */
function locate(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const col = offset - before.lastIndexOf('\n');
  return `line ${line}:${col}`;
}

function policyIssue(text: string, base: number | undefined, p: EngineProblem): Issue {
  const where = p.offset !== undefined && base !== undefined ? `${locate(text, base + p.offset)}: ` : '';
  const who = p.policyId !== undefined ? `policy "${p.policyId}": ` : '';
  // The engine repeats the id ("for policy `x`, ..."); say it once.
  const message = p.message.replace(/^for policy `[^`]*`, /, '');
  return { path: '/policies', message: `${where}${who}${message}` };
}

/** Where each part starts in the text: the engine returns parts in no particular order. */
function positionParts(text: string, parts: string[]): { part: string; at: number }[] {
  const used = new Set<number>();
  const placed = parts.map((part) => {
    let at = text.indexOf(part);
    while (at >= 0 && used.has(at)) at = text.indexOf(part, at + 1);
    if (at >= 0) used.add(at);
    return { part, at };
  });
  // Source order, so `policy<N>` ids follow the file; a part not found verbatim goes last.
  return placed.sort((a, b) => (a.at < 0 ? Infinity : a.at) - (b.at < 0 ? Infinity : b.at));
}

/** Give each policy its `@id` annotation as id (else `policy<N>`, its position in the file). */
function indexPolicies(text: string, parts: string[], issues: Issue[]): { byId: Record<string, string>; ids: string[]; starts: Map<string, number> } {
  // A Map, not an object: an id like "__proto__" or "constructor" is just an id.
  const byId = new Map<string, string>();
  const starts = new Map<string, number>();
  positionParts(text, parts).forEach(({ part, at }, i) => {
    const ann = annotationsOf(part);
    if (!ann.ok) {
      issues.push(...ann.problems.map((p) => policyIssue(text, at >= 0 ? at : undefined, p)));
      return;
    }
    const id = Object.hasOwn(ann.value, 'id') ? ann.value.id : `policy${i}`;
    if (byId.has(id)) {
      issues.push({ path: '/policies', message: `${at >= 0 ? locate(text, at) + ': ' : ''}duplicate policy id "${id}"` });
      return;
    }
    byId.set(id, part);
    if (at >= 0) starts.set(id, at);
  });
  return { byId: Object.fromEntries(byId), ids: [...byId.keys()], starts };
}

function isJsonObject(v: unknown): v is { [k: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export interface LoadPolicyOptions {
  /**
   * Policy-set digests known to have passed this engine's validation already: a log's `policy`
   * entry records each activation with the Cedar version that validated it
   * (http/validated-policy-sets.ts reads them). Validation is a pure function of the text, the schema and the engine version, so it is
   * skipped for these; parsing, ids and preparsing are not. Validation is the author's check, not a
   * guard: a policy that would fail it still evaluates, and any evaluation error denies.
   */
  validated?: (digest: string) => boolean;
  /**
   * Answer repeated requests from the decision memo, with the context cut to what the policies
   * read (default true). False asks the engine every time with the whole context: the reference
   * the memo is tested against.
   */
  memo?: boolean;
}

/** Set by bin/vouch.js for `serve` and `gateway` while start-up runs (engine-refresh.ts clears it). */
export const START_UP_BUDGET_KEY = Symbol.for('vouch.wasmStartUpTieringBudget');
/** Context analyses left for after start-up, each run once. */
const deferred: (() => void)[] = [];

/**
 * Run the context analyses of the policy sets loaded during start-up. Reading each policy's JSON
 * form costs about 30 ms for the example set (measured, under start-up's tiering budget), on the
 * path to the first decision; until then those sets ask the engine every time with the whole context.
 */
export function runDeferredContextAnalysis(): void {
  for (const analyse of deferred.splice(0)) analyse();
}

/** The context paths the whole set reads; undefined (no cut, no memo) when a policy's JSON form cannot be had. */
function needsOf(byId: Record<string, string>): ContextNeeds | undefined {
  const needs = emptyNeeds();
  try {
    for (const text of Object.values(byId)) {
      const est = policyJson(text);
      if (!est.ok) return undefined;
      addPolicyNeeds(needs, est.value);
    }
  } catch {
    // A policy nested deeper than this walk's stack (thousands of `||`): no cut for this set.
    return undefined;
  }
  return needs;
}

/** Parse, validate and preparse a policy set. Throws PolicyLoadError (ERR_POLICY) listing every problem. */
export function loadPolicySet(source: PolicySource, opts: LoadPolicyOptions = {}): PolicySet {
  const issues: Issue[] = [];
  if (typeof source?.policies !== 'string') throw new PolicyLoadError([{ path: '/policies', message: 'must be Cedar policy text (a string)' }]);
  const schema = source.schema;
  if (schema !== undefined && !isJsonObject(schema)) {
    issues.push({ path: '/schema', message: 'must be a Cedar JSON schema (an object keyed by namespace)' });
  }
  const text = source.policies;
  const split = splitPolicyText(text);
  if (!split.ok) throw new PolicyLoadError([...issues, ...split.problems.map((p) => policyIssue(text, 0, p))]);
  if (split.value.templates.length > 0) {
    issues.push({ path: '/policies', message: `${split.value.templates.length} template(s) found: templates are not supported, write static policies` });
  }
  const { byId, ids, starts } = indexPolicies(text, split.value.policies, issues);
  // A private copy: the digest must keep describing what was parsed, whatever the caller mutates later.
  const doc: PolicySource = schema === undefined ? { policies: text } : { policies: text, schema: structuredClone(schema) };
  const digest = digestJson(doc);
  if (schema !== undefined && isJsonObject(schema) && !(issues.length === 0 && opts.validated?.(digest))) {
    const v = validatePolicies(byId, schema);
    if (!v.ok) {
      // The engine reports in no fixed order; sort by place in the file for a stable message.
      const placed = v.problems.map((p) => {
        const base = p.policyId !== undefined ? starts.get(p.policyId) : undefined;
        const at = base === undefined ? Infinity : base + (p.offset ?? 0);
        return { at, issue: p.policyId === undefined ? { path: '/schema', message: p.message } : policyIssue(text, base, p) };
      });
      placed.sort((a, b) => a.at - b.at || (a.issue.message < b.issue.message ? -1 : 1));
      issues.push(...placed.map((x) => x.issue));
    }
  }
  if (issues.length > 0) throw new PolicyLoadError(issues);

  // Content-addressed cache key: loading the same document twice reuses the same parse.
  const pre = preparsePolicies(digest, byId);
  if (!pre.ok) throw new PolicyLoadError(pre.problems.map((p) => policyIssue(text, undefined, p)));
  const actionEntities = isJsonObject(doc.schema) ? actionEntitiesOf(doc.schema) : [];
  let needs: ContextNeeds | undefined;
  if (opts.memo !== false) {
    const analyse = () => void (needs = needsOf(byId));
    if ((globalThis as Record<symbol, unknown>)[START_UP_BUDGET_KEY] !== undefined) deferred.push(analyse);
    else analyse();
  }
  return {
    digest,
    source: doc,
    policyIds: ids,
    roles: rolesNamedIn(Object.values(byId)),
    authorize: (req) => authorizeWith(digest, actionEntities, needs, req),
  };
}

function authorizeWith(setId: string, actionEntities: EngineEntity[], needs: ContextNeeds | undefined, req: AuthzRequest): AuthzResult {
  const isRecord = typeof req.context === 'object' && req.context !== null && !Array.isArray(req.context);
  if (!isRecord) return { decision: 'deny', reasons: [], errors: ['context must be a JSON object'] };
  const principal: EngineEntity = { uid: ref(req.principal), attrs: {}, parents: (req.principalParents ?? []).map(ref) };
  const resource: EngineEntity = { uid: ref(req.resource), attrs: toCedarRecord(req.resourceAttrs ?? {}), parents: [] };
  const entities = [principal];
  if (!sameRef(resource.uid, principal.uid)) entities.push(resource);
  // The key holds every input the engine gets but the action entities, fixed per set.
  const key = needs && JSON.stringify([setId, req.action.type, req.action.id, entities]);
  for (const e of actionEntities) if (!entities.some((x) => sameRef(x.uid, e.uid))) entities.push(e);
  const context = toCedarRecord(req.context);
  // The engine refuses a whole request over one lone surrogate anywhere in it, read or not: a cut
  // that dropped it would answer where the engine does not, so such a context is never cut.
  if (key === undefined || !wellFormed(context)) return evaluate(setId, req, context, entities);
  const cut = projectContext(context, needs!);
  const full = `${key.slice(0, -1)},${JSON.stringify(cut)}]`;
  const known = recallDecision(full);
  if (known) return known;
  const r = evaluate(setId, req, cut, entities);
  // An error's text may name attributes the cut left out: the whole context says it as before.
  if (r.errors.length > 0) return evaluate(setId, req, context, entities);
  rememberDecision(full, r);
  return r;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** No string, key or value, holds a lone surrogate. */
function wellFormed(v: CedarValue): boolean {
  if (typeof v === 'string') return !LONE_SURROGATE.test(v);
  if (typeof v !== 'object') return true;
  if (Array.isArray(v)) return v.every(wellFormed);
  for (const k in v) if (LONE_SURROGATE.test(k) || !wellFormed(v[k])) return false;
  return true;
}

function evaluate(setId: string, req: AuthzRequest, context: { [k: string]: CedarValue }, entities: EngineEntity[]): AuthzResult {
  const answer = authorizePreparsed(setId, {
    principal: ref(req.principal),
    action: ref(req.action),
    resource: ref(req.resource),
    context,
    entities,
  });
  if (!answer.ok) return { decision: 'deny', reasons: [], errors: answer.problems.map((p) => p.message).sort() };
  const { decision, reasons, errors } = answer.value;
  // Sorted: the engine's sets carry no order, and the result goes into a hashed entry.
  if (errors.length > 0) return { decision: 'deny', reasons: decision === 'deny' ? [...reasons].sort() : [], errors: [...errors].sort() };
  return { decision, reasons: [...reasons].sort(), errors: [] };
}

function ref(e: EntityRef): EntityRef {
  return { type: e.type, id: e.id };
}

function sameRef(a: EntityRef, b: EntityRef): boolean {
  return a.type === b.type && a.id === b.id;
}
