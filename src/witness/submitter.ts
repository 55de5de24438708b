// The log's side of witnessing: for each new checkpoint, ask every configured witness to cosign
// it (add-checkpoint with a consistency proof from the size that witness last cosigned; a 409
// answer names that size and we retry from it), and keep the lines that verify. The checkpoint goes
// as signed: the log's Ed25519 and ML-DSA-44 lines (the keys a public witness is given,
// c2sp.org/tlog-witness) beside its ML-DSA-65 one, which a witness ignores as an unknown key.
// Runs on its own timer: a slow or dead witness never delays a decision.
import { backoffDelay } from '../backoff.js';
import { toHex } from '../canonical/index.js';
import { PeriodicTask } from '../periodic.js';
import { postAddCheckpoint } from './client.js';
import type { CosignatureStore } from './cosig-store.js';
import type { CosignerKey } from './cosignature.js';
import { verifyWitnesses } from './verify.js';

export interface WitnessEndpoint {
  /** The witness's name (its cosigner key name). */
  name: string;
  /** Submission prefix: POST <url>/add-checkpoint. */
  url: string;
  keys: CosignerKey[];
}

export interface CheckpointSource {
  origin: string;
  latestCheckpoint(): Promise<{ size: number; root: Uint8Array; note: string } | undefined>;
  consistencyProof(from: number, to: number): Promise<Uint8Array[]>;
}

export interface WitnessStatus {
  witness: string;
  logSize: number;
  cosignedSize: number;
  ok: boolean;
  error?: string;
}

export interface SubmitterOptions {
  source: CheckpointSource;
  witnesses: WitnessEndpoint[];
  store: CosignatureStore;
  timeoutMs?: number;
  /** Attempts per checkpoint after the first, for timeouts and 5xx (backoff doubles from 250 ms). */
  retries?: number;
  intervalMs?: number;
  nowSeconds(): number;
  onStatus?(s: WitnessStatus): void;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref?.());

export class WitnessSubmitter {
  private readonly loop: PeriodicTask;
  /** Per witness, the submission in flight: a slow witness holds up only itself. */
  private busy = new Map<string, Promise<void>>();

  constructor(private readonly o: SubmitterOptions) {
    this.loop = new PeriodicTask(() => this.round(), o.intervalMs ?? 1000);
  }

  start(): this {
    this.loop.start();
    return this;
  }

  /** One round over the newest checkpoint; at most one round runs at a time. */
  tick(): Promise<void> {
    return this.loop.tick();
  }

  async close(): Promise<void> {
    await this.loop.close();
    await Promise.all(this.busy.values());
  }

  /** Resolves when no submission is in flight (tests, shutdown). */
  async idle(): Promise<void> {
    await this.loop.idle();
    await Promise.all(this.busy.values());
  }

  private async round(): Promise<void> {
    const cp = await this.o.source.latestCheckpoint();
    if (!cp) return;
    const { origin } = this.o.source;
    const root = toHex(cp.root);
    for (const w of this.o.witnesses) {
      if (this.busy.has(w.name)) continue; // still on an older checkpoint: it takes the newest next round
      const p = this.submit(w, cp, root).catch((e) => this.o.onStatus?.({ witness: w.name, logSize: cp.size, cosignedSize: this.o.store.acked(origin, w.name)?.size ?? 0, ok: false, error: (e as Error).message }));
      this.busy.set(w.name, p.finally(() => this.busy.delete(w.name)));
    }
  }

  private async submit(w: WitnessEndpoint, cp: { size: number; note: string }, root: string): Promise<void> {
    const { origin } = this.o.source;
    const acked = this.o.store.acked(origin, w.name);
    const status = (ok: boolean, error?: string) =>
      this.o.onStatus?.({ witness: w.name, logSize: cp.size, cosignedSize: this.o.store.acked(origin, w.name)?.size ?? 0, ok, error });
    if (acked && acked.size === cp.size && acked.root === root) return status(true);
    let old = acked?.size ?? 0;
    const retries = this.o.retries ?? 3;
    let conflicts = 0;
    for (let attempt = 0; attempt <= retries && !this.loop.closed; ) {
      if (old > cp.size) return status(false, `witness has cosigned size ${old}, larger than this log's ${cp.size}`);
      const proof = old > 0 && old < cp.size ? await this.o.source.consistencyProof(old, cp.size) : [];
      const a = await postAddCheckpoint(w.url, { oldSize: old, proof, checkpoint: cp.note }, this.o.timeoutMs ?? 5000);
      if (a.kind === 'cosigned') {
        const verdict = verifyWitnesses(cp.note + a.lines.join(''), w.keys, 1);
        if (!verdict.ok) return status(false, `answer did not verify: ${verdict.detail}`);
        const mine = a.lines.filter((l) => w.keys.some((k) => l.startsWith(`\u2014 ${k.name} `)));
        this.o.store.add(origin, cp.size, root, w.name, mine, verdict.cosignatures[0]?.timestamp ?? 0);
        this.o.store.setAcked(origin, w.name, cp.size, root);
        return status(true);
      }
      if (a.kind === 'conflict') {
        // The witness holds another size: prove from that one (once per size it names).
        if (a.size === undefined || a.size === old || ++conflicts > 2) return status(false, `witness answered 409 Conflict (its size ${a.size ?? 'unknown'}): it holds a tree this checkpoint does not extend`);
        old = a.size;
        continue;
      }
      if (a.kind === 'refused') return status(false, `witness refused: HTTP ${a.status} ${a.reason}`);
      attempt++;
      if (attempt > retries) return status(false, a.reason);
      await sleep(backoffDelay(attempt, { baseMs: 250 }));
    }
  }
}
