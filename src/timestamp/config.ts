// The `timestamping` section of the start-up config file (policy/config.ts parses it): the
// operator's TSA, the certificate(s) pinned for it, and the cadence. Portable.

/** `timestamping`: which TSA, the certificate(s) pinned for it, and how often a checkpoint is stamped. */
export interface TimestampingConfig {
  /** The TSA's RFC 3161 HTTP endpoint (http or https). */
  url: string;
  /** PEM file (path relative to the config file) with the TSA certificate or its CA chain: tokens are kept only if they verify against it. */
  certificates: string;
  /** Stamp the newest checkpoint once this many minutes passed since the last stamp (and the log grew). */
  everyMinutes?: number;
  /** Stamp the newest checkpoint once the log grew by this many entries since the last stamp. */
  everyEntries?: number;
  /** Per request (default 10000). */
  timeoutMs?: number;
}
