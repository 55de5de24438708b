// `--tsa-cert FILE` for vouch verify: read the TSA certificate the auditor pins, and check a
// receipt's RFC 3161 time-stamp before the (synchronous) checklist runs. A receipt without a
// stamp, or a stamp without a pinned certificate, is "not checked", never INVALID.
import { readFileSync } from 'node:fs';
import type { Certificate } from 'pkijs';
import { fromBase64 } from '../../canonical/index.js';
import { InputError } from '../../errors.js';
import { hashLeaf, parseNote } from '../../log/index.js';
import { verifiersFor, type Trust } from '../../receipt/index.js';
import { checkTimestamp, parseCertificates, parseTimestampEvidence, type TimestampCheck } from '../../timestamp/index.js';

export function readTsaCert(path: string): Certificate[] {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw new InputError('ERR_INPUT', `cannot read TSA certificate ${path}: ${(e as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
  try {
    return parseCertificates(bytes);
  } catch (e) {
    throw new InputError('ERR_INPUT', `${path}: ${(e as Error).message}`);
  }
}

export async function receiptTimestampCheck(receipt: unknown, trust: Trust, pinned: Certificate[] | undefined, classicalOk: boolean): Promise<TimestampCheck | undefined> {
  const r = receipt as { timestamp?: unknown; entry?: unknown; index?: unknown; checkpoint?: unknown } | null;
  if (r?.timestamp === undefined) {
    return pinned && { name: 'timestamp', ok: true, status: 'not checked', detail: 'the receipt carries no TSA time-stamp (no stamped checkpoint covered the entry when it was fetched: fetch GET /v1/entries/SEQ or vouch receipt SEQ again later)' };
  }
  const ev = parseTimestampEvidence(r.timestamp, '/timestamp', []);
  // A malformed stamp or receipt fails the format check; nothing more to say here.
  if (!ev || typeof r.entry !== 'string' || !Number.isSafeInteger(r.index) || typeof r.checkpoint !== 'string') return undefined;
  let leaf: Uint8Array;
  let origin: string;
  try {
    leaf = hashLeaf(fromBase64(r.entry));
    origin = parseNote(r.checkpoint).text.split('\n')[0];
  } catch {
    return undefined;
  }
  return checkTimestamp(ev, { verifiers: verifiersFor(trust, ev.checkpoint), classicalOk, pinned, covers: { origin, entry: { index: r.index as number, leaf } } });
}
