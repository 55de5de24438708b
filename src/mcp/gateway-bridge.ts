// The multi round-trip bridge (issue 36): a 2026-07-28 client cannot be sent requests, so a 2025
// upstream's elicitation, sampling and roots requests made during a call reach that client as the
// call's `input_required` answer, and the client's retry (`inputResponses`, `requestState`)
// answers them. The upstream's call stays in flight across the rounds; the gateway holds it under
// a random, single-use handle bound to the caller, the method and the call's params, so a handle
// never reaches another caller's call or a result the chain did not see. Each embedded request and
// each answer is decided on the way it crosses (gateway-relay.ts), as in the 2025 era.
import { randomBytes } from 'node:crypto';
import { digestJson } from '../canonical/index.js';
import { JSONRPC } from '../protocol/index.js';
import { GatewayError } from './gateway-errors.js';
import type { Forwarded, Peer } from './gateway-session.js';

type Rec = Record<string, unknown>;

/** How many calls may wait for a client's retry at once (each holds an upstream request open). */
export const MAX_PARKED_CALLS = 256;
/** The client-declared capability each embedded request needs (2026 `_meta` clientCapabilities). */
const CAPABILITY: Record<string, string> = { 'elicitation/create': 'elicitation', 'sampling/createMessage': 'sampling', 'roots/list': 'roots' };

export type Step = { result: Rec } | { inputRequests: Record<string, { method: string; params: Rec }>; requestState: string };

interface Asked {
  key: string;
  method: string;
  params: Rec;
  answer(result: Rec): void;
  refuse(e: Error): void;
}

/** One client call of the 2026 era, possibly spanning several rounds. */
export class BridgedCall {
  private asked: Asked[] = [];
  private outstanding = new Map<string, Asked>();
  private wake?: () => void;
  private n = 0;
  private settled?: { result: Rec } | { error: unknown };
  /** The call's own request decision, once made (gateway-modern.ts sets it from the relay). */
  seq?: number;
  /** Set while parked: the handle the client must echo, and when it lapses. */
  handle?: string;
  lapse?: ReturnType<typeof setTimeout>;

  /**
   * The upstream request's own cancellation: a round's answer ends that round's HTTP request, not
   * the call. It is aborted when the call is given up, or when the client cancels a round that is
   * waiting for the call; never once the relay has settled (the relayed request is answered: a
   * cancellation then would reach the upstream as a late notifications/cancelled).
   */
  readonly cancel = new AbortController();

  constructor(
    readonly owner: string,
    readonly binding: string,
    readonly capabilities: Rec,
  ) {}

  /** The relayed request's answer (set once, right after the call is opened). */
  follow(result: Promise<Rec>): void {
    result.then(
      (r) => this.settle({ result: r }),
      (e) => this.settle({ error: e }),
    );
  }

  /** Cancel the relayed request upstream, unless it has settled. */
  private cancelRelay(reason: unknown): void {
    if (!this.settled) this.cancel.abort(reason);
  }

  private settle(s: { result: Rec } | { error: unknown }): void {
    this.settled = s;
    this.wake?.();
  }

  /** A Peer for one embedded request the upstream made during this call (the relay decided it already). */
  peer(method: string): Peer {
    return {
      name: 'the client',
      send: (params: Rec): Forwarded => {
        const capability = CAPABILITY[method];
        if (capability && !this.capabilities[capability]) {
          throw new GatewayError(JSONRPC.methodNotFound, `the client did not declare the ${capability} capability; ${method} was not forwarded`);
        }
        let answer!: (r: Rec) => void;
        let refuse!: (e: Error) => void;
        const result = new Promise<Rec>((res, rej) => ((answer = res), (refuse = rej)));
        const key = `${method.split('/')[0]}-${++this.n}`;
        this.asked.push({ key, method, params, answer, refuse });
        this.wake?.();
        return { wire: params, result };
      },
    };
  }

  /**
   * The next thing the client gets: the call's result, or the requests asked since the last round.
   * The round's client cancelling while it waits cancels the call upstream.
   */
  async next(signal?: AbortSignal): Promise<{ result: Rec } | { asked: Asked[] }> {
    const cancelled = () => this.cancelRelay(signal?.reason);
    signal?.addEventListener('abort', cancelled, { once: true });
    try {
      return await this.nextOnce(signal);
    } finally {
      signal?.removeEventListener('abort', cancelled);
    }
  }

  private async nextOnce(signal?: AbortSignal): Promise<{ result: Rec } | { asked: Asked[] }> {
    for (;;) {
      if (this.asked.length) {
        await new Promise((r) => setImmediate(r)); // requests asked together go in one round
        const asked = this.asked.splice(0);
        for (const a of asked) this.outstanding.set(a.key, a);
        return { asked };
      }
      if (this.settled) {
        if ('error' in this.settled) throw this.settled.error;
        return { result: this.settled.result };
      }
      await new Promise<void>((resolve, reject) => {
        this.wake = resolve;
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
      this.wake = undefined;
    }
  }

  /** The client's retry: each outstanding request gets its answer; one left unanswered is refused. */
  answer(responses: Rec | undefined): void {
    for (const [key, a] of this.outstanding) {
      const r = responses?.[key];
      if (typeof r === 'object' && r !== null && !Array.isArray(r)) a.answer(r as Rec);
      else a.refuse(new GatewayError(JSONRPC.invalidParams, `the client's retry did not answer input request "${key}" (${a.method})`));
    }
    this.outstanding.clear();
  }

  /** The call is given up (the client never came back, or the gateway closes): the upstream's requests fail. */
  abandon(why: string): void {
    for (const a of [...this.outstanding.values(), ...this.asked]) a.refuse(new GatewayError(JSONRPC.timeout, why));
    this.outstanding.clear();
    this.asked = [];
    this.cancelRelay(new Error(why));
  }
}

/** The handle of a retry must match the caller, the method and the params the call was made with. */
export function bindingOf(method: string, params: unknown): string {
  return `${method}\u0000${digestJson(params ?? {})}`;
}

/** The calls of one downstream side: in flight (the upstream may ask during them) and parked (waiting for a retry). */
export class InputBridge {
  private readonly parked = new Map<string, BridgedCall>();
  private readonly running = new Set<BridgedCall>();

  constructor(private readonly timeoutMs: number) {}

  /** Start a call: `relay` sends it upstream, under the call's own cancellation, and answers it. */
  open(owner: string, binding: string, capabilities: Rec, relay: (signal: AbortSignal) => Promise<Rec>): BridgedCall {
    const call = new BridgedCall(owner, binding, capabilities);
    this.running.add(call);
    const result = Promise.resolve().then(() => relay(call.cancel.signal));
    call.follow(result);
    const done = () => this.running.delete(call);
    result.then(done, done);
    return call;
  }

  /** The request-phase seq of the one call in flight, where known (the link an ask's decisions record). */
  currentSeq(): number | undefined {
    return this.running.size === 1 ? [...this.running][0]!.seq : undefined;
  }

  /**
   * The call an upstream request made now belongs to: the one call in flight of this upstream
   * connection. With none, or several, it cannot be told (2025 servers do not say), so it is refused.
   */
  current(method: string): BridgedCall {
    if (this.running.size === 1) return [...this.running][0]!;
    throw new GatewayError(JSONRPC.methodNotFound, this.running.size === 0 ? `the client speaks MCP 2026-07-28: ${method} can reach it only during a call` : `${this.running.size} calls are in flight: the gateway cannot tell which one ${method} belongs to, so it was not forwarded`);
  }

  /** Park a call whose round went to the client; the handle is what its retry must echo. */
  park(call: BridgedCall): string {
    if (this.parked.size >= MAX_PARKED_CALLS) {
      call.abandon('too many calls are waiting for their clients');
      throw new GatewayError(JSONRPC.unavailable, `${MAX_PARKED_CALLS} calls are already waiting for input: answer or abandon one first`);
    }
    const handle = randomBytes(24).toString('base64url');
    call.handle = handle;
    call.lapse = setTimeout(() => this.drop(handle, `the client did not retry within ${this.timeoutMs} ms`), this.timeoutMs);
    call.lapse.unref?.();
    this.parked.set(handle, call);
    return handle;
  }

  /** The retry's call: only for the same caller, method and params; single use. */
  resume(handle: string, owner: string, binding: string): BridgedCall {
    const call = this.parked.get(handle);
    if (!call || call.owner !== owner || call.binding !== binding) {
      throw new GatewayError(JSONRPC.invalidParams, 'Invalid or expired requestState: retry with the requestState of this call\'s last input_required answer, unchanged, with the same params', { code: 'ERR_REQUEST_STATE' });
    }
    this.parked.delete(handle);
    clearTimeout(call.lapse);
    call.handle = undefined;
    return call;
  }

  private drop(handle: string, why: string): void {
    const call = this.parked.get(handle);
    if (!call) return;
    this.parked.delete(handle);
    call.abandon(why);
  }

  /** Calls in flight or waiting for a retry: while any is, the caller still holds this side. */
  size(): number {
    return this.parked.size + this.running.size;
  }

  close(): void {
    for (const h of [...this.parked.keys()]) this.drop(h, 'the gateway is closing');
  }
}
