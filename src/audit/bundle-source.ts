// A bundle as a replay source (`vouch replay --bundle`): entries from entries.jsonl, payloads
// from payloads.jsonl in lockstep, documents by digest. Reads once, forward only. Portable.
import type { Digest } from '../canonical/index.js';
import { PayloadCursor } from './_payload-cursor.js';
import { documentPath, FILES, parseEntryLine, parseManifest, type BundleManifest } from './bundle-format.js';
import type { ReplaySource } from './replay.js';
import type { BundleReader } from './verify-bundle.js';

export async function openBundleSource(reader: BundleReader): Promise<{ manifest: BundleManifest; source: ReplaySource }> {
  const manifest = parseManifest(JSON.parse((await reader.text(FILES.manifest)) ?? 'null'));
  const cursor = new PayloadCursor(manifest.payloads ? reader.lines(FILES.payloads) : undefined);
  const source: ReplaySource = {
    size: async () => manifest.range.to,
    async *entries(from, to) {
      for await (const line of reader.lines(FILES.entries) ?? []) {
        if (line === '') continue;
        const e = parseEntryLine(line);
        if (e.seq >= to) break;
        if (e.seq >= from) yield e;
      }
    },
    payload: (d, seq) => cursor.payload(d, seq),
    erasedAt: (d, seq) => cursor.erasedAt(d, seq),
    document: async (d: Digest) => (await reader.bytes(documentPath('chain', d))) ?? (await reader.bytes(documentPath('policy', d))),
  };
  return { manifest, source };
}
