// Which MCP era a downstream connection speaks, told from its first message (issue 36), the way
// the SDK v2's serveStdio tells it: `initialize`, or any message without a `_meta` protocol
// version claim, opens a 2025-era connection; `server/discover` or a claim opens a 2026-07-28 one.
// The connection is then handed, first message included, to the server of that era.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { envelopeClaimOf } from '../protocol/index.js';

export type DownstreamEra = 'legacy' | 'modern';

/** The era a connection's opening message selects (pure). */
export function eraOfOpening(message: unknown): DownstreamEra {
  if (typeof message !== 'object' || message === null) return 'legacy';
  const m = message as { method?: unknown; params?: unknown };
  if (m.method === 'initialize') return 'legacy';
  if (m.method === 'server/discover') return 'modern';
  return envelopeClaimOf(m.params) ? 'modern' : 'legacy';
}

export interface EraRouter {
  /** The transport the chosen era's server connects: its start() is a no-op, the buffered messages follow it. */
  transport: Transport;
  /** Settles with the era once the first message arrived; rejects if the connection closed first. */
  era: Promise<DownstreamEra>;
  /** Settles when the connection closes (whichever server holds it). */
  ended: Promise<void>;
}

/**
 * Start `inner` and hold its messages until the era is known. The returned transport replays them,
 * in order, to whichever server connects it; after that it is `inner`, message for message.
 */
export function routeByEra(inner: Transport): EraRouter {
  const held: JSONRPCMessage[] = [];
  let connected = false;
  let decide!: (era: DownstreamEra) => void;
  let fail!: (e: Error) => void;
  const era = new Promise<DownstreamEra>((resolve, reject) => ((decide = resolve), (fail = reject)));
  era.catch(() => undefined); // a connection that closes before speaking is not an error of its own
  let decided = false;
  let end!: () => void;
  const ended = new Promise<void>((r) => (end = r));
  const outer: Transport = {
    async start() {
      connected = true;
      // After the server's connect() has set onmessage: deliver what arrived before it, in order.
      queueMicrotask(() => {
        for (const m of held.splice(0)) outer.onmessage?.(m);
      });
    },
    send: (message, options) => inner.send(message, options),
    close: () => inner.close(),
    get sessionId() {
      return inner.sessionId;
    },
    setProtocolVersion: (v: string) => inner.setProtocolVersion?.(v),
  };
  inner.onmessage = (message, extra) => {
    if (!decided) {
      decided = true;
      decide(eraOfOpening(message));
    }
    if (connected && held.length === 0) outer.onmessage?.(message, extra);
    else held.push(message);
  };
  inner.onclose = () => {
    if (!decided) fail(new Error('the client closed the connection before its first message'));
    outer.onclose?.();
    end();
  };
  inner.onerror = (e) => outer.onerror?.(e);
  void inner.start().catch((e: Error) => fail(e));
  return { transport: outer, era, ended };
}
