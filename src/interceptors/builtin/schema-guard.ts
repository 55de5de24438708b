// schema-guard: tools/call arguments checked against the tool's inputSchema as last listed
// (DESIGN 3) to the same principal of the same tenant (state-scope.ts: another caller's listing
// must neither loosen nor tighten it). prepare() looks the schema up (live) and records it as
// state, so run() and replay are pure; an unknown tool is a warning by default (configurable:
// allow | warning | error).
// `closedTools` (the file tools, say) admit exactly what their schema declares: they must have been
// listed, and an argument their inputSchema's `properties` do not name is an error, whatever the
// server's schema says of additional properties (a path under another name is still a path).
import { UNKNOWN_SERVER } from '../server-of.js';
import { escapePointer } from '../../canonical/index.js';
import type { Interceptor, Json, Message, Severity, ValidationOutcome } from '../types.js';
import { buildDescriptor, ConfigReader } from './_content-config.js';
import { compileSchema } from './_json-schema.js';
import { principalScopeOf } from './state-scope.js';
import { whenAnswered, type BuiltinFactory, type ToolSchemaCache } from './types.js';

export type UnknownToolHandling = 'allow' | 'warning' | 'error';
export const UNKNOWN_HANDLING: readonly UnknownToolHandling[] = ['allow', 'warning', 'error'];
/** An entry holds at most this many messages; `info.errors` has the full count. */
const MAX_MESSAGES = 20;

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface SchemaGuardConfig {
  unknownTool: UnknownToolHandling;
  /** Tools whose arguments must be exactly what their inputSchema declares (and which must be listed). */
  closedTools?: readonly string[];
}

export function parseSchemaGuardConfig(name: string, config: Json | undefined): SchemaGuardConfig {
  const r = new ConfigReader(name, config, ['unknownTool', 'closedTools']);
  const v = isRec(config) ? config.unknownTool : undefined;
  if (v !== undefined && !UNKNOWN_HANDLING.includes(v as UnknownToolHandling)) {
    r.issues.push({ path: '/config/unknownTool', message: `must be one of: ${UNKNOWN_HANDLING.join(', ')}` });
  }
  const closed = r.strings('closedTools');
  r.done();
  return { unknownTool: (v as UnknownToolHandling | undefined) ?? 'warning', closedTools: closed ?? [] };
}

/** The call params, whether the payload is the params or a whole JSON-RPC request. */
function callOf(payload: unknown): { name?: string; args: unknown; base: string } {
  const params = isRec(payload) && payload.name === undefined && isRec(payload.params) ? payload.params : payload;
  const base = params === payload ? '' : '/params';
  if (!isRec(params)) return { args: undefined, base };
  return { name: typeof params.name === 'string' ? params.name : undefined, args: params.arguments ?? {}, base };
}

/** The state prepare() records: the schema as last listed, or that the tool is unknown. */
export type SchemaGuardState = { tool: string; inputSchema: Json } | { tool: string; unknown: true } | null;

function flag(severity: Severity, message: string, info: Record<string, unknown>): ValidationOutcome {
  return { valid: false, severity, messages: [{ message, severity }], info };
}

/** Pure: validate the call against the recorded state. */
export function checkArguments(payload: unknown, state: Json | undefined, cfg: SchemaGuardConfig): ValidationOutcome {
  const call = callOf(payload);
  if (call.name === undefined) return flag('error', 'tools/call without a tool name', {});
  const recorded = isRec(state) && state.tool === call.name && 'inputSchema' in state ? (state.inputSchema as Json) : undefined;
  // A closed tool is judged only against a schema it was listed with: unknown or unusable, an error.
  const closed = cfg.closedTools?.includes(call.name) ?? false;
  const unknown: UnknownToolHandling = closed ? 'error' : cfg.unknownTool;
  if (recorded === undefined) {
    if (unknown === 'allow') return { valid: true, info: { tool: call.name, schema: 'unknown' } };
    return flag(unknown, `no inputSchema known for tool "${call.name}" (not listed yet)`, { tool: call.name, schema: 'unknown' });
  }
  const compiled = compileSchema(recorded);
  if ('error' in compiled) {
    const sev = unknown === 'allow' ? 'warning' : unknown;
    return flag(sev, `inputSchema of tool "${call.name}" does not compile: ${compiled.error}`, { tool: call.name, schema: 'invalid' });
  }
  const errors = [...(closed ? undeclaredArguments(recorded, call.args, `${call.base}/arguments`) : []), ...compiled.validate(call.args, `${call.base}/arguments`)];
  if (errors.length === 0) return { valid: true, info: { tool: call.name } };
  const messages = errors.slice(0, MAX_MESSAGES);
  return { valid: false, severity: 'error', messages, info: { tool: call.name, errors: errors.length } };
}

/**
 * A closed tool's arguments: an object whose every key its inputSchema's `properties` name, as
 * written (the key a server reads). The same wording as a schema's `additionalProperties: false`.
 */
function undeclaredArguments(schema: Json, args: unknown, base: string): Message[] {
  if (!isRec(args)) return [{ message: `${base} must be object`, severity: 'error', path: base }];
  const declared = isRec(schema) && isRec(schema.properties) ? schema.properties : {};
  return Object.keys(args)
    .filter((k) => !Object.hasOwn(declared, k))
    .map((k) => {
      const path = `${base}/${escapePointer(k)}`;
      return { message: `${path} must NOT have additional properties`, severity: 'error' as const, path };
    });
}

export const createSchemaGuard: BuiltinFactory = ({ name, config, declaration, deps }): Interceptor => {
  const cfg = parseSchemaGuardConfig(name, config);
  const schemas: ToolSchemaCache = deps.toolSchemas ?? deps.state.toolSchemas;
  const descriptor = buildDescriptor(
    name,
    {
      type: 'validation',
      description: "Checks tools/call arguments against the tool's inputSchema as last listed.",
      hooks: [{ events: ['tools/call'], phase: 'request' }],
    },
    declaration,
  );
  return {
    descriptor,
    // Live only: the schema is read here and recorded, so replay does not depend on the cache.
    prepare(payload, ctx) {
      const tool = callOf(payload).name;
      if (tool === undefined) return null;
      return whenAnswered(schemas.get(principalScopeOf(ctx), ctx.server ?? UNKNOWN_SERVER, tool), (inputSchema): Json => (inputSchema === undefined ? { tool, unknown: true } : { tool, inputSchema }));
    },
    run: (payload, ctx) => checkArguments(payload, ctx.state, cfg),
  };
};
