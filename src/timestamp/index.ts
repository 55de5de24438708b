// RFC 3161 trusted time for checkpoints (issue 41 part 2): tokens (pkijs), their evidence in
// receipts and bundles, and the offline check. Portable surface; Node parts are imported by path
// (node-tsa.ts, store.ts, stamper.ts, client.ts), and so is evidence-format.ts by code that must
// not load pkijs (receipt parsing and serving, which the browser console and Workers bundle).
export { buildTimestampRequest, parseCertificates, readToken, subjectOf, tokenFromReply, verifyTimestampToken, type TokenFacts } from './token.js';
export { checkTimestamp, type CheckTimestampOptions, type TimestampCheck } from './evidence.js';
export { assertTimestampEvidence, buildTimestampEvidence, parseTimestampEvidence, type TimestampEvidence } from './evidence-format.js';
export type { TimestampingConfig } from './config.js';
