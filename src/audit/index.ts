// Audit: deterministic replay, what-if analysis, erasure, and audit bundles (export, verify).
// Portable; the Node adapters (directories, .tar.gz, SQLite sources) are in ./node-bundle.ts.
export { diffJson, escapePointer } from './diff.js';
export {
  replayLog, Replayer, loadInput, emptyCounts, RUNNING_ENGINES,
  type ReplaySource, type ReplayResult, type ReplayReport, type ReplayCounts, type ReplayOptions, type ReplayStatus, type UnreplayableReason,
} from './replay.js';
export { whatIf, type WhatIfReport, type WhatIfOptions, type Flip, type EnricherChange } from './what-if.js';
export { determinersOf, formatDeterminer, type Determiner } from './what-if-explain.js';
export { eraseStoredPayload, MAX_REASON_LENGTH, type ErasureTarget, type ErasureOptions } from './erase.js';
export {
  BUNDLE_FORMAT, BUNDLE_VERSION, FILES, documentPath, parseManifest, parseRangeFile, formatRangeFile, parseEntryLine, formatEntryLine,
  parsePayloadLine, formatPayloadLine, type BundleManifest, type KeyRecord, type RangeFile, type PayloadLine,
  DEFAULT_BUNDLE_LIMITS, isBundleFile, type BundleLimits,
} from './bundle-format.js';
export { exportBundle, planExport, keyRecordsOf, rangeBefore, type ExportSource, type BundleSink, type ExportOptions, type ExportPlan } from './export.js';
export { verifyBundle, emptyBundleReport, type BundleVerdict, type BundleReader, type BundleReport, type BundleFinding, type BundleCheck, type BundleWitnessCheck, type VerifyBundleOptions } from './verify-bundle.js';
export { createTarWriter, readTar, tarHeader, type TarWriter, type TarItem } from './tar.js';
export { scanErasures } from './erasures.js';
export { firstSeqAfter, MAX_RETENTION_DAYS, parseRetentionPolicy, retentionDaysOf, retentionTargetOf, runRetention, type RetentionPolicy, type RetentionRun, type RetentionRunOptions, type RetentionTarget } from './retention.js';
export { openBundleSource } from './bundle-source.js';
export { bundleTarEntries, collectBundleTar, type BundleTarEntry } from './bundle-tar.js';
export { canonicalForm as sep3004CanonicalForm, eventHash as sep3004EventHash, sealRecord as sealSep3004Record, CANONICAL_FORM_VERSION } from './sep3004-canonical.js';
export { recordOfDecision, eventTypeOf, EXTENSION_REGISTRY, type Sep3004Record, type VouchLink } from './sep3004-record.js';
export { exportSep3004, SEP3004_FORMAT, SEP3004_VERSION, type Sep3004Options, type Sep3004Segment } from './sep3004-export.js';
export { verifySep3004, KNOWN_ANSWERS as SEP3004_KNOWN_ANSWERS, type Sep3004Report, type Sep3004Check, type Sep3004Finding } from './sep3004-verify.js';
export { checkSep3004Links, type LinkSource } from './sep3004-link.js';
