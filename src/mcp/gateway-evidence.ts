// Where an allowed answer's receipts are (issue 37): every answer names its decisions' seqs and
// where each receipt is served (the listener's GET /v1/entries/SEQ, or over stdio the command that
// prints it), and a caller may ask for the signed receipts attached (`_meta["io.vouch/receipt"]:
// "attach"`, or `vouch gateway --attach-receipts` for every call).
import { GatewayError } from './gateway-errors.js';
import { JSONRPC } from '../protocol/index.js';

type Rec = Record<string, unknown>;

/** The request key that asks for the signed receipts in the answer, and its one value. */
export const ATTACH_META = 'io.vouch/receipt';
export const ATTACH = 'attach';
/** Where the request decision's receipt is served, and the response decision's seq and receipt. */
export const RECEIPT_URL_META = 'io.vouch/receipt-url';
export const RECEIPT_COMMAND_META = 'io.vouch/receipt-command';
export const RESPONSE_SEQ_META = 'io.vouch/response-seq';
export const RESPONSE_RECEIPT_URL_META = 'io.vouch/response-receipt-url';
export const RESPONSE_RECEIPT_COMMAND_META = 'io.vouch/response-receipt-command';

/** How a session tells where receipts are, and whether it attaches them to every answer. */
export interface ReceiptEvidence {
  /** The receipt's URL (a listener serves the audit routes) or the command that prints it (stdio). */
  where(seq: number): { url: string } | { command: string };
  /** Attach the signed receipts to every allowed answer (`--attach-receipts`), not only when asked. */
  attachAll?: boolean;
}

/**
 * The runtime's locator: the listener's base URL once it listens (the public one under --auth),
 * else the CLI command for this data directory and tenant. Read per answer: a listener that
 * closes stops being named.
 */
export class ReceiptLocator implements ReceiptEvidence {
  base: string | undefined;
  constructor(
    private readonly data: string,
    private readonly tenant: string,
    readonly attachAll = false,
  ) {}
  where(seq: number | 'SEQ'): { url: string } | { command: string } {
    if (this.base !== undefined) return { url: `${this.base}/v1/entries/${seq}` };
    return { command: `vouch receipt ${seq} --data ${shellWord(this.data)} --tenant ${this.tenant}` };
  }
  /** For the ready line: the URL or command with SEQ in place of a number. */
  describe(): string {
    const w = this.where('SEQ');
    return 'url' in w ? w.url : w.command;
  }
}

/** A path as one shell word: as is when plain, else single-quoted. */
function shellWord(s: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`;
}

/**
 * The caller's attach request, taken out of the params: it is addressed to the gateway (like a
 * progress token, hop by hop), so neither the decision nor the upstream sees it. Any other value
 * is refused with a coded error before anything is decided or sent.
 */
export function takeAttachRequest(payload: Rec): { payload: Rec; attach: boolean } {
  const meta = payload._meta;
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta) || !(ATTACH_META in meta)) return { payload, attach: false };
  const { [ATTACH_META]: asked, ...rest } = meta as Rec;
  if (asked !== ATTACH) throw new GatewayError(JSONRPC.invalidParams, `_meta["${ATTACH_META}"] in a request takes "${ATTACH}" (the signed receipts in the answer's _meta); nothing was decided or forwarded`, { code: 'ERR_INPUT' });
  const { _meta: _old, ...body } = payload;
  return { payload: Object.keys(rest).length ? { ...body, _meta: rest } : body, attach: true };
}

/** The answer's pointers to its two decisions' receipts. */
export function receiptPointers(ev: ReceiptEvidence | undefined, request: number, response: number): Rec {
  const out: Rec = { [RESPONSE_SEQ_META]: response };
  if (!ev) return out;
  const a = ev.where(request);
  const b = ev.where(response);
  if ('url' in a && 'url' in b) Object.assign(out, { [RECEIPT_URL_META]: a.url, [RESPONSE_RECEIPT_URL_META]: b.url });
  else if ('command' in a && 'command' in b) Object.assign(out, { [RECEIPT_COMMAND_META]: a.command, [RESPONSE_RECEIPT_COMMAND_META]: b.command });
  return out;
}
