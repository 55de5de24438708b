// RFC 3161 trusted time for checkpoints (issue 41 part 2): tokens (pkijs), their evidence in
// receipts and bundles, and the offline check. Portable surface; Node parts are imported by path
// (node-tsa.ts, store.ts, stamper.ts, client.ts).
export { buildTimestampRequest, parseCertificates, readToken, subjectOf, tokenFromReply, verifyTimestampToken, type TokenFacts } from './token.js';
export { assertTimestampEvidence, buildTimestampEvidence, checkTimestamp, parseTimestampEvidence, type CheckTimestampOptions, type TimestampCheck, type TimestampEvidence } from './evidence.js';
export type { TimestampingConfig } from './config.js';
