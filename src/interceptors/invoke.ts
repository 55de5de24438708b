// interceptor/invoke: run one interceptor by itself and return its raw SEP result (mode and
// failOpen do not apply here: they are chain semantics). Failures are JSON-RPC errors:
// a crash is ERR_INTERCEPTOR_FAILED (-32603), a timeout ERR_CHAIN_TIMEOUT (-32000).
import { VouchError } from '../errors.js';
import { attemptInterceptor } from './_attempt.js';
import { DEFAULT_DIRECTIONS, baseContext, type ChainContext } from './_context.js';
import type { Direction, Interceptor, InterceptorResult, Json, Phase } from './types.js';

export interface InvokeParams {
  event: string;
  phase: Phase;
  payload: unknown;
}

export interface InvokeOptions {
  directions?: { request: Direction; response: Direction };
  timeoutMs?: number;
  replayState?: Record<string, Json>;
  clock?: { monotonic(): number };
  signal?: AbortSignal;
  /** Receives what prepare() returned (the state a decision entry would record). */
  onState?: (state: Json) => void;
}

export const DEFAULT_INVOKE_TIMEOUT_MS = 5_000;

/** The unknown-name check (-32602, ERR_UNKNOWN_INTERCEPTOR) is the caller's, before this. */
export async function invokeInterceptor(
  interceptor: Interceptor,
  params: InvokeParams,
  ctx: ChainContext,
  opts: InvokeOptions = {},
): Promise<InterceptorResult> {
  const { event, phase } = params;
  const direction = (opts.directions ?? DEFAULT_DIRECTIONS)[phase];
  const timeoutMs = opts.timeoutMs !== undefined && Number.isFinite(opts.timeoutMs) && opts.timeoutMs > 0 ? Math.min(opts.timeoutMs, 2_147_483_647) : DEFAULT_INVOKE_TIMEOUT_MS;
  const a = await attemptInterceptor(interceptor, params.payload, baseContext(ctx, event, phase, direction), {
    timeoutMs,
    replayState: opts.replayState,
    signal: opts.signal,
    clock: opts.clock,
    recordState: opts.onState && ((_name, state) => opts.onState?.(state)),
  });
  if (a.ok) return a.result;
  if (a.timedOut) throw new VouchError('ERR_CHAIN_TIMEOUT', `interceptor ${interceptor.descriptor.name} ${a.reason}`);
  throw new VouchError('ERR_INTERCEPTOR_FAILED', `interceptor ${interceptor.descriptor.name} failed: ${a.reason}`);
}
