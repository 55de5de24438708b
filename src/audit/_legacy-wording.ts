// Words of a decision record that changed without the decision changing: entries signed before the
// change replay as matches (issue 37). Cedar's default deny said "denied by policy (default deny)"
// and now goes on ": no permit matched Tool::"x"[; the role ... would allow it]". Only that: a
// recorded string of the old form, where the replayed one is it plus the new words, is taken as it
// was recorded; every other difference stays a mismatch.
const LEGACY_DEFAULT_DENY = /^denied by policy \(default deny\)(?: on path '[\s\S]*')?$/;
const ADDED = ': no permit matched ';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `replayed`, with each new-words default deny put back in the old words where `recorded` has them. */
export function inRecordedWording(recorded: unknown, replayed: unknown): unknown {
  if (typeof recorded === 'string' && typeof replayed === 'string') {
    return recorded !== replayed && LEGACY_DEFAULT_DENY.test(recorded) && replayed.startsWith(recorded + ADDED) ? recorded : replayed;
  }
  if (Array.isArray(recorded) && Array.isArray(replayed)) return replayed.map((x, i) => inRecordedWording(recorded[i], x));
  if (isRecord(recorded) && isRecord(replayed)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(replayed)) out[k] = Object.hasOwn(recorded, k) ? inRecordedWording(recorded[k], replayed[k]) : replayed[k];
    return out;
  }
  return replayed;
}
