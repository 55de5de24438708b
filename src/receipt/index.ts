// Receipts: the format and its offline verifier (portable).
export { buildReceipt, parseReceipt, formatTlogProof, parseTlogProof, RECEIPT_VERSION, type Receipt, type CallerSignature } from './format.js';
export { verifyReceipt, sameSizeFork, type Check, type CheckName, type ReceiptReport, type VerifyReceiptOptions } from './verify.js';
export { parseTrust, verifiersFor } from './trust.js';
