// parseConfig: the chain config document, validated whole. Every problem is reported at once
// by JSON Pointer (ConfigError ERR_CONFIG), so an operator fixes a file in one pass.
import { ConfigError } from '../errors.js';
import { setMember, type Json } from '../canonical/index.js';
import type { Direction } from '../protocol/index.js';
import { Issues, pointer } from './_issues.js';
import { parseDeclaration } from './config-declaration.js';
import { checkHookedEvents, parseDeclaredEvents, parseUncovered } from './config-events.js';
import type { InterceptorDeclaration, PolicyConfig, VouchConfig } from './config-types.js';
import { allowEntryProblem } from './remote-allow.js';

const TOP_KEYS = ['version', 'directions', 'timeouts', 'policies', 'interceptors', 'servers', 'drift', 'events', 'uncovered', 'tools', 'remoteInterceptors', 'timestamping'];
const MAX_TIMEOUT_MS = 600_000;
const POLICY_USERS = ['cedar-policy', 'discovery-filter'];

function parsePolicies(is: Issues, v: unknown): PolicyConfig | undefined {
  const o = is.obj(v, '/policies', ['files', 'schema', 'inline']);
  if (!o) return undefined;
  if (o.inline !== undefined) {
    if (o.files !== undefined || o.schema !== undefined) is.add('/policies', 'give either files (+ schema) or inline, not both');
    const inl = is.obj(o.inline, '/policies/inline', ['policies', 'schema']);
    if (!inl) return undefined;
    const policies = is.str(inl.policies, '/policies/inline/policies');
    const schema = inl.schema === undefined ? undefined : is.json(inl.schema, '/policies/inline/schema');
    if (inl.schema !== undefined && (typeof schema !== 'object' || schema === null || Array.isArray(schema))) {
      if (schema !== undefined) is.add('/policies/inline/schema', 'must be a Cedar JSON schema (an object)');
      return undefined;
    }
    return policies === undefined ? undefined : { inline: schema === undefined ? { policies } : { policies, schema } };
  }
  const files = is.strArray(o.files, '/policies/files', { nonEmpty: true });
  const schema = o.schema === undefined ? undefined : is.str(o.schema, '/policies/schema', { nonEmpty: true });
  if (!files || (o.schema !== undefined && schema === undefined)) return undefined;
  return schema === undefined ? { files } : { files, schema };
}

function parseDirections(is: Issues, v: unknown): VouchConfig['directions'] {
  const o = is.obj(v, '/directions', ['request', 'response']);
  if (!o) return undefined;
  const out: { request?: Direction; response?: Direction } = {};
  const dirs = ['sending', 'receiving'] as const;
  if (o.request !== undefined) out.request = is.oneOf(o.request, '/directions/request', dirs);
  if (o.response !== undefined) out.response = is.oneOf(o.response, '/directions/response', dirs);
  return out;
}

function parseTimeouts(is: Issues, v: unknown): VouchConfig['timeouts'] {
  const o = is.obj(v, '/timeouts', ['chainMs', 'interceptorMs', 'enricherMs']);
  if (!o) return undefined;
  const out: { chainMs?: number; interceptorMs?: number; enricherMs?: number } = {};
  // The enrichment band's own deadline (docs/enrichers.md): bounded by the band's maximum, 10 s.
  if (o.enricherMs !== undefined) out.enricherMs = is.int(o.enricherMs, '/timeouts/enricherMs', 1, 10_000);
  if (o.chainMs !== undefined) out.chainMs = is.int(o.chainMs, '/timeouts/chainMs', 1, MAX_TIMEOUT_MS);
  if (o.interceptorMs !== undefined) out.interceptorMs = is.int(o.interceptorMs, '/timeouts/interceptorMs', 1, MAX_TIMEOUT_MS);
  if (out.chainMs !== undefined && out.interceptorMs !== undefined && out.interceptorMs > out.chainMs) {
    is.add('/timeouts/interceptorMs', 'must not exceed chainMs');
  }
  return out;
}

function parseServers(is: Issues, v: unknown): VouchConfig['servers'] {
  const o = is.obj(v, '/servers', ['toolMap']);
  if (!o || o.toolMap === undefined) return o ? {} : undefined;
  const map = is.obj(o.toolMap, '/servers/toolMap', Object.keys(o.toolMap ?? {}));
  if (!map) return undefined;
  const toolMap: Record<string, string> = {};
  for (const [tool, server] of Object.entries(map)) {
    const s = is.str(server, pointer('/servers/toolMap', tool), { nonEmpty: true });
    if (s !== undefined) setMember(toolMap, tool, s);
  }
  return { toolMap };
}

function parseRemoteInterceptors(is: Issues, v: unknown): VouchConfig['remoteInterceptors'] {
  const o = is.obj(v, '/remoteInterceptors', ['allow']);
  if (!o) return undefined;
  const allow = is.strArray(o.allow, '/remoteInterceptors/allow');
  allow?.forEach((u, i) => {
    const problem = allowEntryProblem(u);
    if (problem) is.add(pointer('/remoteInterceptors/allow', i), problem);
  });
  return allow && { allow };
}

function parseTimestamping(is: Issues, v: unknown): VouchConfig['timestamping'] {
  const o = is.obj(v, '/timestamping', ['url', 'certificates', 'everyMinutes', 'everyEntries', 'timeoutMs']);
  if (!o) return undefined;
  const url = is.str(o.url, '/timestamping/url', { nonEmpty: true });
  if (url !== undefined && !/^https?:\/\/[^\s]+$/.test(url)) is.add('/timestamping/url', "must be the TSA's http(s) URL");
  const certificates = is.str(o.certificates, '/timestamping/certificates', { nonEmpty: true });
  const everyMinutes = o.everyMinutes === undefined ? undefined : is.int(o.everyMinutes, '/timestamping/everyMinutes', 1, 7 * 24 * 60);
  const everyEntries = o.everyEntries === undefined ? undefined : is.int(o.everyEntries, '/timestamping/everyEntries', 1, 1_000_000_000);
  const timeoutMs = o.timeoutMs === undefined ? undefined : is.int(o.timeoutMs, '/timestamping/timeoutMs', 100, 120_000);
  if (url === undefined || certificates === undefined) return undefined;
  // Neither given: once an hour (a stamp per decision would put the TSA's load on every call).
  return { url, certificates, ...(everyMinutes === undefined && everyEntries === undefined ? { everyMinutes: 60 } : {}), ...(everyMinutes !== undefined && { everyMinutes }), ...(everyEntries !== undefined && { everyEntries }), ...(timeoutMs !== undefined && { timeoutMs }) };
}

function parseInterceptors(is: Issues, v: unknown): InterceptorDeclaration[] {
  if (!Array.isArray(v)) {
    is.add('/interceptors', 'must be an array of interceptor declarations');
    return [];
  }
  const out: InterceptorDeclaration[] = [];
  const seen = new Map<string, number>();
  v.forEach((d, i) => {
    // Duplicates are found on the raw names, so a bad first declaration still claims its name.
    const name = typeof d === 'object' && d !== null ? (d as { name?: unknown }).name : undefined;
    if (typeof name === 'string') {
      const first = seen.get(name);
      if (first !== undefined) is.add(pointer(pointer('/interceptors', i), 'name'), `duplicate name "${name}" (also /interceptors/${first})`);
      else seen.set(name, i);
    }
    const decl = parseDeclaration(is, d, pointer('/interceptors', i));
    if (decl) out.push(decl);
  });
  return out;
}

/** Validate a config document (already parsed from YAML or JSON). Throws ConfigError listing every issue. */
export function parseConfig(input: unknown): VouchConfig {
  const is = new Issues();
  const o = is.obj(input, '', TOP_KEYS);
  if (!o) throw new ConfigError('ERR_CONFIG', 'config must be an object', is.list);
  if (o.version !== 1) is.add('/version', 'must be 1');
  const config: VouchConfig = { version: 1, interceptors: [] };
  if (o.directions !== undefined) config.directions = parseDirections(is, o.directions);
  if (o.timeouts !== undefined) config.timeouts = parseTimeouts(is, o.timeouts);
  if (o.policies !== undefined) config.policies = parsePolicies(is, o.policies);
  if (o.events !== undefined) config.events = parseDeclaredEvents(is, o.events);
  const declared = config.events ?? [];
  if (o.interceptors === undefined) is.add('/interceptors', 'required');
  else config.interceptors = parseInterceptors(is, o.interceptors);
  if (Array.isArray(o.interceptors)) checkHookedEvents(is, config.interceptors, o.interceptors, declared);
  if (o.uncovered !== undefined) config.uncovered = parseUncovered(is, o.uncovered, declared);
  // A Cedar interceptor without policies would deny everything: almost surely a missing section.
  config.interceptors.forEach((d, i) => {
    if ('use' in d && POLICY_USERS.includes(d.use) && o.policies === undefined) is.add(`/interceptors/${i}/use`, `${d.use} needs a policies section`);
  });
  if (o.servers !== undefined) config.servers = parseServers(is, o.servers);
  if (o.drift !== undefined) config.drift = is.json(o.drift, '/drift') as Json;
  if (o.tools !== undefined) config.tools = is.json(o.tools, '/tools') as Json; // pins: mcp/tool-pins.ts
  if (o.remoteInterceptors !== undefined) config.remoteInterceptors = parseRemoteInterceptors(is, o.remoteInterceptors);
  if (o.timestamping !== undefined) config.timestamping = parseTimestamping(is, o.timestamping);
  if (is.list.length > 0) {
    const lines = is.list.map((i) => `  ${i.path || '/'}: ${i.message}`).join('\n');
    throw new ConfigError('ERR_CONFIG', `invalid config (${is.list.length} problem${is.list.length === 1 ? '' : 's'}):\n${lines}`, is.list);
  }
  return config;
}
