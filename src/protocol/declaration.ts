// Parse an interceptor declaration (SEP-2624 `hooks` shape, or the seed's flat `events` +
// `phase`/`phases`) into the normalized wire descriptor, defaults omitted so two
// descriptors compare byte-equal after JCS. Unknown fields are ignored (forward compatible).
import { InputError, type Issue } from '../errors.js';
import { escapePointer, isPlainObject } from '../canonical/index.js';
import { ROLE_META, type Compat, type Hook, type InterceptorDescriptor, type InterceptorType, type Phase, type PriorityHint } from './types.js';

const NAME = /^[A-Za-z0-9._/:-]+$/;
const MAX_NAME = 200;
const MAX_EVENT = 200;
const MAX_VERSION = 100;
/** MCP protocol versions are dates; compared as strings, so the format is enforced. */
export const PROTOCOL_VERSION = /^\d{4}-\d{2}-\d{2}$/;
const TYPES: readonly InterceptorType[] = ['validation', 'mutation', 'observability'];
const PHASES: readonly Phase[] = ['request', 'response'];

/** Throws InputError ERR_INPUT listing every bad field by JSON Pointer (prefixed by `path`). */
export function parseDeclaration(input: unknown, path = ''): InterceptorDescriptor {
  const issues: Issue[] = [];
  const bad = (field: string, message: string) => issues.push({ path: `${path}${field}`, message });
  if (!isPlainObject(input)) {
    throw new InputError('ERR_INPUT', 'interceptor declaration must be an object', [{ path: path || '/', message: 'not an object' }]);
  }
  const d = input;

  if (typeof d.name !== 'string' || d.name.length === 0) bad('/name', 'required non-empty string');
  else if (d.name.length > MAX_NAME) bad('/name', `longer than ${MAX_NAME} characters`);
  else if (!NAME.test(d.name)) bad('/name', 'only A-Z a-z 0-9 . _ / : - allowed');

  if (!TYPES.includes(d.type as InterceptorType)) bad('/type', `must be one of ${TYPES.join(', ')}`);

  const hooks = parseHooks(d, bad);

  let mode: 'audit' | undefined;
  if (d.mode === 'audit') mode = 'audit';
  // 'enforce' is the pre-amendment spelling of 'active': accepted on input, never emitted.
  else if (d.mode !== undefined && d.mode !== 'active' && d.mode !== 'enforce') bad('/mode', 'must be active or audit');

  if (d.failOpen !== undefined && typeof d.failOpen !== 'boolean') bad('/failOpen', 'must be a boolean');
  const priorityHint = parsePriorityHint(d.priorityHint, bad);

  if (d.description !== undefined && typeof d.description !== 'string') bad('/description', 'must be a string');
  if (d.version !== undefined && (typeof d.version !== 'string' || d.version.length === 0 || d.version.length > MAX_VERSION)) {
    bad('/version', `must be a non-empty string of at most ${MAX_VERSION} characters`);
  }
  const compat = parseCompat(d.compat, bad);
  if (d.configSchema !== undefined && !isPlainObject(d.configSchema)) bad('/configSchema', 'must be an object (a JSON Schema)');
  const enricher = parseRole(d, hooks, bad);

  if (issues.length > 0) {
    throw new InputError('ERR_INPUT', `invalid interceptor declaration: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, issues);
  }
  const out: InterceptorDescriptor = { name: d.name as string, type: d.type as InterceptorType, hooks };
  if (typeof d.version === 'string') out.version = d.version;
  if (typeof d.description === 'string') out.description = d.description;
  if (mode) out.mode = mode;
  if (d.failOpen === true) out.failOpen = true;
  if (priorityHint !== undefined) out.priorityHint = priorityHint;
  if (compat !== undefined) out.compat = compat;
  if (isPlainObject(d.configSchema)) out.configSchema = structuredClone(d.configSchema);
  if (enricher) out._meta = { [ROLE_META]: 'enricher' };
  return out;
}

export type Bad = (field: string, message: string) => void;

function parseHooks(d: Record<string, unknown>, bad: Bad): Hook[] {
  const flat = d.events !== undefined || d.phase !== undefined || d.phases !== undefined;
  if (d.hooks !== undefined) {
    if (flat) bad('/hooks', 'give hooks, or flat events and phase, not both');
    if (!Array.isArray(d.hooks) || d.hooks.length === 0) {
      bad('/hooks', 'must be a non-empty array');
      return [];
    }
    return d.hooks.map((h, i) => {
      if (!isPlainObject(h)) {
        bad(`/hooks/${i}`, 'must be an object');
        return { events: [], phase: 'request' };
      }
      const events = parseEvents(h.events, `/hooks/${i}/events`, bad);
      if (!PHASES.includes(h.phase as Phase)) bad(`/hooks/${i}/phase`, 'must be request or response');
      return { events, phase: h.phase as Phase };
    });
  }
  // Seed shape: flat events plus `phase` (or the conformance fixtures' `phases`).
  const events = parseEvents(d.events, '/events', bad);
  if (d.phase !== undefined && d.phases !== undefined) bad('/phases', 'give phase or phases, not both');
  const key = d.phases !== undefined ? 'phases' : 'phase';
  const p = d[key];
  if (p === 'both') return [{ events, phase: 'request' }, { events: [...events], phase: 'response' }];
  if (PHASES.includes(p as Phase)) return [{ events, phase: p as Phase }];
  bad(`/${key}`, 'must be request, response or both');
  return [];
}

function parseEvents(v: unknown, field: string, bad: Bad): string[] {
  if (!Array.isArray(v) || v.length === 0) {
    bad(field, 'must be a non-empty array of event names');
    return [];
  }
  v.forEach((e, i) => {
    if (typeof e !== 'string' || e.length === 0 || e.length > MAX_EVENT) bad(`${field}/${i}`, `must be a non-empty string of at most ${MAX_EVENT} characters`);
  });
  return [...(v as string[])];
}

function parsePriorityHint(v: unknown, bad: Bad): PriorityHint | undefined {
  if (v === undefined || v === 0) return undefined;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) bad('/priorityHint', 'must be a finite number');
    return v;
  }
  if (!isPlainObject(v)) {
    bad('/priorityHint', 'must be a number or {request, response}');
    return undefined;
  }
  const out: { request?: number; response?: number } = {};
  for (const k of Object.keys(v)) {
    if (k !== 'request' && k !== 'response') bad(`/priorityHint/${escapePointer(k)}`, 'unknown phase');
  }
  for (const k of PHASES) {
    const n = v[k];
    if (n === undefined) continue;
    if (typeof n !== 'number' || !Number.isFinite(n)) bad(`/priorityHint/${k}`, 'must be a finite number');
    else if (n !== 0) out[k] = n; // 0 is the default: omitted
  }
  return out.request === undefined && out.response === undefined ? undefined : out;
}

/**
 * `compat: {minProtocol?, maxProtocol?}` (SEP-1763 seed); each bound a protocol version
 * (YYYY-MM-DD). Other keys are ignored (forward compatible); an empty range is omitted.
 */
export function parseCompat(v: unknown, bad: Bad, field = '/compat'): Compat | undefined {
  if (v === undefined) return undefined;
  if (!isPlainObject(v)) {
    bad(field, 'must be an object {minProtocol?, maxProtocol?}');
    return undefined;
  }
  const out: Compat = {};
  for (const k of ['minProtocol', 'maxProtocol'] as const) {
    const b = v[k];
    if (b === undefined) continue;
    if (typeof b !== 'string' || !PROTOCOL_VERSION.test(b)) bad(`${field}/${k}`, 'must be a protocol version YYYY-MM-DD');
    else out[k] = b;
  }
  if (out.minProtocol !== undefined && out.maxProtocol !== undefined && out.minProtocol > out.maxProtocol) bad(`${field}/maxProtocol`, 'is before minProtocol');
  return out.minProtocol === undefined && out.maxProtocol === undefined ? undefined : out;
}

/**
 * `_meta: {"io.vouch/role": "enricher"}`: a mutation hooked on response phases only, whose contract
 * vouch narrows (it may only add, it never blocks). Other `_meta` keys are ignored (forward
 * compatible); a role vouch does not know is refused rather than run with a contract it was not given.
 */
function parseRole(d: Record<string, unknown>, hooks: Hook[], bad: Bad): boolean {
  if (d._meta === undefined) return false;
  if (!isPlainObject(d._meta)) {
    bad('/_meta', 'must be an object');
    return false;
  }
  const role = d._meta[ROLE_META];
  if (role === undefined) return false;
  const at = `/_meta/${escapePointer(ROLE_META)}`;
  if (role !== 'enricher') {
    bad(at, 'must be "enricher" (the only role vouch knows)');
    return false;
  }
  if (d.type !== 'mutation') bad('/type', 'an enricher is a mutation (it adds to the result)');
  if (hooks.some((h) => h.phase !== 'response')) bad('/hooks', 'an enricher hooks response phases only (it annotates a result)');
  return true;
}
