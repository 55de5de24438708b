// What a writer of entries needs of a log: append a body (with payloads kept by digest) and get
// the committed entry back once it is durable and signed. Every deployment's log port satisfies it.
import type { Appended, Durable, DurableOptions } from './appending.js';
import type { EntryBody } from './entry.js';
import type { Attachment } from './storage.js';

export interface LogWriter {
  append(body: EntryBody, attachments?: Attachment[]): Promise<Appended>;
  /** Resolve once the entry is durable (committed, fsync'd); its receipt follows in `signed` (unless `follow: false`). Absent: `append`. */
  appendDurable?(body: EntryBody, attachments?: Attachment[], opts?: DurableOptions): Promise<Durable>;
}
