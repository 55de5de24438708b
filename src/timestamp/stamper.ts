// The log's side of RFC 3161 time-stamping: on its own timer, after checkpoints are signed, send
// the newest checkpoint's note to the TSA when the cadence says so (every N entries or every N
// minutes, never per decision), check the token against the pinned certificate and keep it. A TSA
// that is down delays only the stamp: retried with doubling backoff, each failure reported.
import { retryAt } from '../backoff.js';
import { toHex } from '../canonical/index.js';
import { codeOf } from '../errors.js';
import { PeriodicTask } from '../periodic.js';
import type { Certificate } from 'pkijs';
import { requestTimestamp } from './client.js';
import type { TimestampRecord, TimestampStore } from './store.js';
import { verifyTimestampToken } from './token.js';

export interface StampSource {
  origin: string;
  /** The newest signed checkpoint, note as the log signed it (no cosignature lines). */
  latestCheckpoint(): Promise<{ size: number; root: Uint8Array; note: string } | undefined>;
}

export interface TsaStatus {
  ok: boolean;
  /** Size of the checkpoint tried. */
  size: number;
  /** The newest stamp after this attempt. */
  stamped?: { size: number; genTime: string; received: number };
  error?: string;
}

export interface StamperOptions {
  source: StampSource;
  store: Pick<TimestampStore, 'add' | 'newest'>;
  url: string;
  pinned: Certificate[];
  everyEntries?: number;
  everyMs?: number;
  timeoutMs?: number;
  /** How often the cadence is looked at (default 5 s). */
  tickMs?: number;
  /** First retry delay after a failure, doubling up to maxBackoffMs (defaults 1 s, 5 min). */
  backoffMs?: number;
  maxBackoffMs?: number;
  nowMs(): number;
  onStatus?(s: TsaStatus): void;
}

export class TimestampStamper {
  private readonly loop: PeriodicTask;
  private failures = 0;
  private retryAt = 0;

  constructor(private readonly o: StamperOptions) {
    this.loop = new PeriodicTask(() => this.round(), o.tickMs ?? 5000);
  }

  start(): this {
    this.loop.start();
    return this;
  }

  /** One look at the cadence; at most one request in flight. */
  tick(): Promise<void> {
    return this.loop.tick();
  }

  close(): Promise<void> {
    return this.loop.close();
  }

  /** Is the newest checkpoint due a stamp? A new tree only, and the cadence reached (the first one at once). */
  private due(cp: { size: number }, last: TimestampRecord | undefined, now: number): boolean {
    if (cp.size === 0 || (last && cp.size <= last.size)) return false;
    if (!last) return true;
    const byEntries = this.o.everyEntries !== undefined && cp.size - last.size >= this.o.everyEntries;
    const byTime = this.o.everyMs !== undefined && now - last.received >= this.o.everyMs;
    return byEntries || byTime;
  }

  private async round(): Promise<void> {
    const now = this.o.nowMs();
    if (now < this.retryAt) return;
    const cp = await this.o.source.latestCheckpoint();
    const { origin } = this.o.source;
    const last = this.o.store.newest(origin);
    if (!cp || !this.due(cp, last, now)) return;
    const data = new TextEncoder().encode(cp.note);
    try {
      const token = await requestTimestamp(this.o.url, data, this.o.timeoutMs ?? 10_000);
      // Kept only if it holds against the operator's pinned certificate: what auditors will check.
      const facts = await verifyTimestampToken(token, data, this.o.pinned);
      const rec: TimestampRecord = { origin, size: cp.size, root: toHex(cp.root), note: cp.note, token, tsa: facts.tsa, genTime: facts.genTime, received: this.o.nowMs() };
      this.o.store.add(rec);
      this.failures = 0;
      this.retryAt = 0;
      this.o.onStatus?.({ ok: true, size: cp.size, stamped: { size: rec.size, genTime: rec.genTime, received: rec.received } });
    } catch (e) {
      this.failures++;
      this.retryAt = retryAt(this.failures, this.o.nowMs(), { baseMs: this.o.backoffMs ?? 1000, maxMs: this.o.maxBackoffMs ?? 300_000 });
      const l = this.o.store.newest(origin);
      this.o.onStatus?.({ ok: false, size: cp.size, stamped: l && { size: l.size, genTime: l.genTime, received: l.received }, error: `${codeOf(e)}: ${(e as Error).message}` });
    }
  }
}
