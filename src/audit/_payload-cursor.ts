// payloads.jsonl read in lockstep with entries.jsonl: both are in seq order, so a forward cursor
// answers "the payload of entry N" with one line in memory, however large the bundle.
import type { Digest } from '../canonical/index.js';
import { publicMessage } from '../errors.js';
import { parsePayloadLine, type PayloadLine } from './bundle-format.js';

export class PayloadCursor {
  private readonly it: AsyncIterator<string> | undefined;
  private current: PayloadLine | undefined;
  private done = false;
  private lastSeq = -1;
  /** Problems with payloads.jsonl itself (bad lines, lines out of order). */
  readonly problems: { seq?: number; message: string }[] = [];

  constructor(lines: AsyncIterable<string> | undefined) {
    this.it = lines?.[Symbol.asyncIterator]();
    if (!this.it) this.done = true;
  }

  /** The line for entry `seq`, if there is one; lines for earlier seqs are passed over. */
  private async at(seq: number): Promise<PayloadLine | undefined> {
    while (!this.done && (this.current === undefined || this.current.seq < seq)) {
      const r = await this.it!.next();
      if (r.done) {
        this.done = true;
        this.current = undefined;
        break;
      }
      if (r.value === '') continue;
      try {
        const line = parsePayloadLine(r.value);
        if (line.seq <= this.lastSeq) this.problems.push({ seq: line.seq, message: `payloads.jsonl: line for seq ${line.seq} after seq ${this.lastSeq} (out of order)` });
        this.lastSeq = Math.max(this.lastSeq, line.seq);
        this.current = line;
      } catch (e) {
        this.problems.push({ message: `payloads.jsonl: ${publicMessage(e)}` });
      }
    }
    return this.current?.seq === seq ? this.current : undefined;
  }

  async payload(_digest: Digest, seq: number): Promise<Uint8Array | undefined> {
    const line = await this.at(seq);
    // A line for this seq but another digest is handed over as is: replay's digest check names it.
    return line && 'bytes' in line ? line.bytes : undefined;
  }

  async erasedAt(digest: Digest, seq: number): Promise<number | undefined> {
    const line = await this.at(seq);
    return line && 'erased' in line && line.digest === digest ? line.erased : undefined;
  }
}
