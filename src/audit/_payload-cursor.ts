// payloads.jsonl read in lockstep with entries.jsonl: both are in seq order, so a forward cursor
// answers "the payloads of entry N" with that entry's lines in memory (its input, then what its
// enrichers added), however large the bundle.
import type { Digest } from '../canonical/index.js';
import { publicMessage } from '../errors.js';
import { parsePayloadLine, type PayloadLine } from './bundle-format.js';

export class PayloadCursor {
  private readonly it: AsyncIterator<string> | undefined;
  /** The lines of the newest seq read (a decision's input, then its enrichments). */
  private current: PayloadLine[] = [];
  private curSeq = -1;
  /** The first line of a later seq, read to know the current seq's lines had ended. */
  private pending: PayloadLine | undefined;
  private done = false;
  private lastSeq = -1;
  /** Problems with payloads.jsonl itself (bad lines, lines out of order). */
  readonly problems: { seq?: number; message: string }[] = [];

  constructor(lines: AsyncIterable<string> | undefined) {
    this.it = lines?.[Symbol.asyncIterator]();
    if (!this.it) this.done = true;
  }

  /** The lines for entry `seq` (none when it has none); lines for earlier seqs are passed over. */
  private async at(seq: number): Promise<PayloadLine[]> {
    if (seq < this.curSeq) return []; // in lockstep: a seq already passed has nothing more
    if (seq === this.curSeq) return this.current; // complete: reading stopped at a later line or the end
    this.curSeq = seq;
    this.current = [];
    for (;;) {
      const line = this.pending ?? (await this.next());
      this.pending = undefined;
      if (!line) return this.current;
      if (line.seq < seq) continue;
      if (line.seq > seq) {
        this.pending = line;
        return this.current;
      }
      this.current.push(line);
    }
  }

  private async next(): Promise<PayloadLine | undefined> {
    while (!this.done) {
      const r = await this.it!.next();
      if (r.done) {
        this.done = true;
        return undefined;
      }
      if (r.value === '') continue;
      try {
        const line = parsePayloadLine(r.value);
        if (line.seq < this.lastSeq) this.problems.push({ seq: line.seq, message: `payloads.jsonl: line for seq ${line.seq} after seq ${this.lastSeq} (out of order)` });
        this.lastSeq = Math.max(this.lastSeq, line.seq);
        return line;
      } catch (e) {
        this.problems.push({ message: `payloads.jsonl: ${publicMessage(e)}` });
      }
    }
    return undefined;
  }

  async payload(digest: Digest, seq: number): Promise<Uint8Array | undefined> {
    const lines = await this.at(seq);
    const line = lines.find((l) => l.digest === digest) ?? lines[0];
    // A line for this seq but another digest is handed over as is: replay's digest check names it.
    return line && 'bytes' in line ? line.bytes : undefined;
  }

  async erasedAt(digest: Digest, seq: number): Promise<number | undefined> {
    const line = (await this.at(seq)).find((l) => l.digest === digest);
    return line && 'erased' in line ? line.erased : undefined;
  }
}
