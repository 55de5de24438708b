// The evidence an allowed answer carries to the client: each decision's signed receipt where
// ready (else its committed entry), both seqs, and where each receipt is served; the peer's own
// `io.vouch/` keys dropped.
import { RECEIPT_META } from '../http/mcp-server.js';
import { DURABLE_META, durableAnswer } from '../http/wait.js';
import { ENRICHMENT_META } from '../interceptors/chain.js';
import { signedOf, type RelayOutcome } from './gateway-decision.js';
import { receiptPointers } from './gateway-evidence.js';
import { isRec, VOUCH_META_PREFIX } from './gateway-meta.js';
import type { RelaySession } from './gateway-session.js';

type Rec = Record<string, unknown>;

export const SEQ_META = 'io.vouch/seq';
export const RESPONSE_RECEIPT_META = 'io.vouch/response-receipt';
/** With a durable answer whose signed receipt was not ready: the committed response-phase entry. */
export const RESPONSE_DURABLE_META = 'io.vouch/response-durable';

/** The signed receipt where ready, else the committed entry (its receipt is at GET /v1/entries/:seq). */
function evidenceOf(o: RelayOutcome, receiptKey: string, durableKey: string): Rec {
  const r = o.receipt ?? o.ready;
  return r ? { [receiptKey]: r } : { [durableKey]: durableAnswer(o.appended) };
}

/**
 * The answer with its evidence: each decision's signed receipt where ready (with `attach`, waited
 * for: one checkpoint signature after the upstream answered), else its committed entry; both seqs
 * and where each receipt is served (gateway-evidence.ts).
 */
export async function withReceipts(s: RelaySession, result: Rec, request: RelayOutcome, response: RelayOutcome, attach: boolean): Promise<Rec> {
  // The peer's answer may carry keys of ours (a receipt of another call, a made-up durable entry or
  // receipt URL): every io.vouch/ key of the answer is the gateway's, so the peer's are dropped.
  // The enrichment key is the exception when the response's enrichment band wrote it (the band
  // drops the peer's own before it writes): what the model is told about the result.
  const banded = response.chain.results.some((r) => isRec(r.info) && r.info.role === 'enricher');
  const meta = isRec(result._meta) ? Object.fromEntries(Object.entries(result._meta).filter(([k]) => !k.startsWith(VOUCH_META_PREFIX) || (banded && k === ENRICHMENT_META))) : {};
  const [req, res] = attach ? await Promise.all([signedOf(request), signedOf(response)]) : [request, response];
  return {
    ...result,
    _meta: {
      ...meta,
      ...evidenceOf(req, RECEIPT_META, DURABLE_META),
      [SEQ_META]: request.appended.seq,
      ...evidenceOf(res, RESPONSE_RECEIPT_META, RESPONSE_DURABLE_META),
      ...receiptPointers(s.evidence, request.appended.seq, response.appended.seq),
    },
  };
}
