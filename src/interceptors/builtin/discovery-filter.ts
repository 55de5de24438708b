// discovery-filter: removes from tools/list, prompts/list and resources/list responses what the
// caller may not use, asking Cedar per item with the matching call action (least exposure; the
// call-time cedar-policy check still runs). Its commit() feeds listed tool schemas to schema-guard,
// under the caller's own scope (state-scope.ts): what one principal listed checks its calls only.
import { ConfigError } from '../../errors.js';
import { argumentsOf, buildAuthzRequest, LIST_TO_CALL, type PolicySet } from '../../policy/index.js';
import { UNKNOWN_SERVER } from '../server-of.js';
import type { InterceptorContext, Interceptor, Json, MutationOutcome } from '../types.js';
import { buildDescriptor, ConfigReader } from './_content-config.js';
import { principalScopeOf } from './state-scope.js';
import type { BuiltinFactory, ToolSchema, ToolSchemaCache } from './types.js';

type Rec = Record<string, unknown>;

function isRec(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The list result, whether the payload is the result itself or a JSON-RPC response holding it. */
function listHolder(payload: unknown, key: string): { holder: Rec; wrap: (h: Rec) => unknown } | undefined {
  if (!isRec(payload)) return undefined;
  if (Array.isArray(payload[key])) return { holder: payload, wrap: (h) => h };
  const result = payload.result;
  if (isRec(result) && Array.isArray(result[key])) return { holder: result, wrap: (h) => ({ ...payload, result: h }) };
  return undefined;
}

/**
 * Pure: the listing without the items a call to which would be denied. An item is judged as a
 * call with no arguments (arguments are unknown at list time); items without a name/uri are hidden.
 */
export function filterListing(policySet: PolicySet, payload: unknown, ctx: Omit<InterceptorContext, 'signal' | 'state'>): MutationOutcome {
  const map = LIST_TO_CALL[ctx.event];
  const found = map ? listHolder(payload, map.key) : undefined;
  if (!map || !found) return { modified: false, payload };
  const items = found.holder[map.key] as unknown[];
  const kept: unknown[] = [];
  const hidden: string[] = [];
  for (const item of items) {
    const id = isRec(item) ? item[map.id] : undefined;
    if (typeof id !== 'string') {
      hidden.push('(unnamed)');
      continue;
    }
    const resource = { type: map.type, id };
    const args = map.action === 'resources/read' ? argumentsOf(map.action, { uri: id }) : { ok: true as const, args: {} };
    const req = args.ok ? buildAuthzRequest(map.action, resource, args.args, ctx) : undefined;
    if (req && policySet.authorize(req).decision === 'allow') kept.push(item);
    else hidden.push(id);
  }
  if (hidden.length === 0) return { modified: false, payload, info: { hidden: [] } };
  return { modified: true, payload: found.wrap({ ...found.holder, [map.key]: kept }), info: { hidden } };
}

/** The name and inputSchema of every well-formed tool of a tools/list result. */
export function toolSchemasOf(payload: unknown): ToolSchema[] {
  const found = listHolder(payload, 'tools');
  if (!found) return [];
  return (found.holder.tools as unknown[]).flatMap((t) =>
    isRec(t) && typeof t.name === 'string' && isRec(t.inputSchema) ? [{ name: t.name, inputSchema: t.inputSchema as Json }] : [],
  );
}

export const createDiscoveryFilter: BuiltinFactory = ({ name, config, declaration, deps }): Interceptor => {
  new ConfigReader(name, config, []).done();
  const policySet = deps.policySet;
  if (!policySet) throw new ConfigError('ERR_CONFIG', `${name}: discovery-filter needs a policy set`, [{ path: '/use', message: 'no policies configured' }]);
  const schemas: ToolSchemaCache = deps.toolSchemas ?? deps.state.toolSchemas;
  const descriptor = buildDescriptor(
    name,
    {
      type: 'mutation',
      description: 'Hides tools, prompts and resources the caller may not use (least exposure).',
      hooks: [{ events: ['tools/list', 'prompts/list', 'resources/list'], phase: 'response' }],
    },
    declaration,
  );
  return {
    descriptor,
    run: (payload, ctx) => filterListing(policySet, payload, ctx),
    // Live only, after the decision is durable: the schemas as last listed, for schema-guard.
    commit(finalPayload, ctx) {
      if (ctx.event !== 'tools/list' || ctx.phase !== 'response') return;
      const tools = toolSchemasOf(finalPayload);
      if (tools.length > 0) return schemas.set(principalScopeOf(ctx), ctx.server ?? UNKNOWN_SERVER, tools);
    },
  };
};
