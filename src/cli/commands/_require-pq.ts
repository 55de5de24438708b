// `--require-pq any|mldsa65` for vouch verify (receipts and bundles): which post-quantum signature
// a checkpoint needs (log/note.ts). A bad value is a usage error (exit 2), never a verdict.
import { parsePqRequirement, type PqRequirement } from '../../log/index.js';
import { UsageError } from '../io.js';

export function requirePqOption(text: string | undefined): PqRequirement {
  try {
    return parsePqRequirement(text);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}
