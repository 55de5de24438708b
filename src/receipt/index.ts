// Receipts: the format and its offline verifier (portable).
export { buildReceipt, parseReceipt, formatTlogProof, parseTlogProof, RECEIPT_VERSION, type Receipt, type CallerSignature } from './format.js';
export { verifyReceipt, sameSizeFork, type Check, type CheckName, type ReceiptReport, type VerifyReceiptOptions } from './verify.js';
export { describeNoteKeys, KEY_FILE_FORMS, parseTrust, verifiersFor, type NamedNoteKey, type Trust } from './trust.js';
export {
  checkCallerSignature, verifyCallerSignature, callerVerifier, parseCallerKeys, parseCallerSignatureClaim, parseCallerSignatureHeader, formatCallerSignatureHeader,
  CALLER_SIGNATURE_META, CALLER_SIGNATURE_HEADER, type CallerCheck, type CallerSignatureClaim, type CallerSignatureRecord,
} from './caller-signature.js';
export { parseNewerCheckpoint, checkNewerCheckpoint, type NewerCheckpoint, type NewerCheck, type ForkEvidence } from './newer-checkpoint.js';
export { verifyReceiptFully, formatChecklist, checklistTitle, truncationNotChecked, verdictOf, verdictFields, describeWitnessLag, describePostQuantum, type FullReport, type FullVerifyInput, type ReportCheck, type WitnessLag } from './verify-report.js';
export { summarizeEntry, printable, type EntrySummary } from './entry-summary.js';
export { COSE_ALG, COSE_LABEL, COSE_MEDIA_TYPE, ENTRY_LABEL, TREE_SIZE_LABEL, VDP_INCLUSION, VDS_RFC9162_SHA256, looksLikeCoseSign1, parseCoseReceipt, sigStructure, type CoseReceipt } from './cose-format.js';
export { buildCoseReceipt, coseKid, coseSignatureCache, signCoseRoot, type CoseReceiptInput, type CoseSigner } from './cose-sign.js';
export { coseVerdict, formatCoseChecklist, verifyCoseReceipt, type CoseCheck, type CoseCheckName, type CoseReport, type VerifyCoseOptions } from './cose-verify.js';
