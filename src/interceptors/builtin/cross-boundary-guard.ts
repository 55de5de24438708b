// cross-boundary-guard: a secret that server X returned in a conversation must not flow into a
// request to another server Y of the same conversation (exfiltration, "relaybleed"). Each call
// alone is authorized; only the cross-call view sees the flow. Taint comes from responses only, so
// a request can only be caught by strictly-prior reads; writing back to X stays allowed. The
// conversation is the caller's own (state-scope.ts): tenant, principal, and the session it named.
import { InputError } from '../../errors.js';
import { serverOf, UNKNOWN_SERVER } from '../server-of.js';
import type { Interceptor, InterceptorContext, Json, Message, ValidationOutcome } from '../types.js';
import { buildDescriptor, ConfigReader } from './_content-config.js';
import { findSecrets } from './_patterns.js';
import { fingerprintSecret, parseGuardState, type GuardMatch, type GuardState } from './_taint-state.js';
import { forEachString, formatPath, joinStrings } from './_walk.js';
import { conversationScopeOf } from './state-scope.js';
import { whenAnswered, type BuiltinFactory, type MaybePromise, type TaintMatch, type TaintStore } from './types.js';

type LiveCtx = Omit<InterceptorContext, 'state'>;

// Bound on each live memo of an instance (in-flight servers, secret kinds): oldest first out.
const MAX_REMEMBERED = 10_000;

function remember<V>(memo: Map<string, V>, key: string, value: V): void {
  memo.delete(key);
  if (memo.size >= MAX_REMEMBERED) memo.delete(memo.keys().next().value!);
  memo.set(key, value);
}

const kindKey = (scope: string, fingerprint: string) => JSON.stringify([scope, fingerprint]);

/** The secret kind a response gave each tainted fingerprint, as far as known. */
type KnownKinds = Pick<ReadonlyMap<string, string>, 'get'>;

/** The kinds this conversation's responses gave its tainted fingerprints (a view of the instance's memo). */
function kindsOf(kinds: ReadonlyMap<string, string>, scope: string): KnownKinds {
  return { get: (fingerprint: string) => kinds.get(kindKey(scope, fingerprint)) };
}

/** The server a request goes to: as resolved by the caller, else from the payload (pure). */
export function targetOf(payload: unknown, ctx: Pick<InterceptorContext, 'server' | 'event' | 'phase'>): string {
  return ctx.server ?? serverOf({ event: ctx.event, phase: ctx.phase, payload });
}

/**
 * Live, request phase: which tainted values of the conversation occur in the payload, each with the
 * kind and path our detectors give it (the value itself is never recorded, only its fingerprint).
 */
export function prepareGuardState(
  taint: TaintStore,
  payload: unknown,
  ctx: LiveCtx,
  knownKinds: KnownKinds = new Map(),
): MaybePromise<GuardState> {
  return whenAnswered(taint.find(conversationScopeOf(ctx), joinStrings(payload)), (found) => guardStateOf(found, payload, knownKinds));
}

/** The matches of a request, sorted: where and as what our detectors see each tainted value (pure). */
function guardStateOf(found: TaintMatch[], payload: unknown, knownKinds: KnownKinds): GuardState {
  if (found.length === 0) return { matches: [] };
  const located = new Map<string, { kind: string; path: string }>();
  forEachString(payload, (text, path) => {
    for (const hit of findSecrets(text)) {
      const fp = fingerprintSecret(hit.value);
      if (!located.has(fp)) located.set(fp, { kind: hit.kind, path: formatPath(path) });
    }
  });
  const matches: GuardMatch[] = [];
  const seen = new Set<string>();
  for (const m of found) {
    const key = `${m.server}\u0000${m.fingerprint}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const where = [...located].find(([fp]) => fp === m.fingerprint || fp.startsWith(m.fingerprint))?.[1];
    // The kind seen in the response wins: it had the context (an AWS secret key is only
    // recognisable next to its name, which the request may not repeat).
    const kind = knownKinds.get(m.fingerprint) ?? where?.kind ?? 'secret';
    matches.push({ server: m.server, fingerprint: m.fingerprint, kind, ...(where ? { path: where.path } : {}) });
  }
  const order = (m: GuardMatch): string => `${m.server}\u0000${m.fingerprint}`;
  matches.sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
  return { matches };
}

/** Pure: deny when a tainted value from another server is in this request. */
export function decideGuard(state: GuardState, target: string): ValidationOutcome {
  const crossing = state.matches.filter((m) => m.server !== target);
  if (crossing.length === 0) return { valid: true, info: { target, tainted: state.matches.length } };
  const messages: Message[] = crossing.map((m) => ({
    message: `cross-boundary secret flow: ${m.kind} returned by '${m.server}' may not be sent to '${target}'`,
    severity: 'error',
    ...(m.path !== undefined ? { path: m.path } : {}),
  }));
  return { valid: false, severity: 'error', messages, info: { target, crossings: crossing.length } };
}

export const createCrossBoundaryGuard: BuiltinFactory = ({ name, config, declaration, deps }): Interceptor => {
  new ConfigReader(name, config, []).done();
  const taint = deps.state.taint;
  // Server of each conversation's in-flight request, for responses whose server the caller could
  // not name (a bare `{content}` result carries no tool name). Live only, like the taint store.
  const inFlight = new Map<string, string>();
  // Kind of each tainted fingerprint as detected in its response, for the deny message, per
  // conversation like the taint itself. Live memory of this instance only; a miss only makes the
  // message say "secret".
  const kinds = new Map<string, string>();
  const descriptor = buildDescriptor(
    name,
    {
      type: 'validation',
      description: 'Denies a secret returned by one server from flowing into a call to another server in the same session.',
      hooks: ['request', 'response'].map((phase) => ({
        events: ['tools/call', 'resources/read', 'prompts/get'],
        phase: phase as 'request' | 'response',
      })),
    },
    declaration,
  );
  return {
    descriptor,
    // Taint and matches from what crossed the boundary, before any redactor: a redactor that
    // removed the secret from the response would leave nothing to taint, and one that removed it
    // from the relaying request would let the relay through unrecorded (the example config runs
    // secret-redactor first on the way out and last on the way back).
    readsReceived: true,
    prepare(payload, ctx) {
      if (ctx.phase !== 'request') return null;
      const scope = conversationScopeOf(ctx);
      remember(inFlight, scope, targetOf(payload, ctx));
      return prepareGuardState(taint, payload, ctx, kindsOf(kinds, scope)) as unknown as MaybePromise<Json>;
    },
    run(payload, ctx) {
      if (ctx.phase === 'response') {
        return { valid: true, info: { secrets: findSecrets(joinStrings(payload)).length } };
      }
      if (ctx.state === undefined) {
        throw new InputError('ERR_INPUT', `${name}: no recorded state for a request-phase check`);
      }
      return decideGuard(parseGuardState(ctx.state), targetOf(payload, ctx));
    },
    async commit(finalPayload, ctx) {
      if (ctx.phase !== 'response') return;
      const scope = conversationScopeOf(ctx);
      const server = ctx.server && ctx.server !== UNKNOWN_SERVER ? ctx.server : (inFlight.get(scope) ?? UNKNOWN_SERVER);
      const hits = findSecrets(joinStrings(finalPayload));
      if (hits.length === 0) return;
      for (const h of hits) remember(kinds, kindKey(scope, fingerprintSecret(h.value)), h.kind);
      // Awaited: the decision is answered only once the taint is stored (a Durable Object on
      // Workers), so the next request of the conversation, in any isolate, sees it.
      await taint.add(scope, server, [...new Set(hits.map((h) => h.value))]);
    },
  };
};
