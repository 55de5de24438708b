// `--archive DIR` (serve, log verify|archive|prune): a local directory. A URL (where the archive is
// served from) would be taken as a relative path: verify would check nothing and say clean, archive
// would write a directory named `http:`. Served archives are checked with a tlog client instead.
import { existsSync, statSync } from 'node:fs';
import { UsageError } from '../io.js';

/** The --archive value as given, refused when it is a URL, or (mustExist: log verify) not a directory. */
export function archiveOption(value: string | undefined, opts: { mustExist?: boolean } = {}): string | undefined {
  if (value === undefined) return undefined;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) throw new UsageError(`--archive takes a directory, not a URL (${value}): to check an archive served over HTTP or from a bucket, read it with a tlog client (docs/keeping-logs.md); to check a local copy, give its directory`);
  if (opts.mustExist && !(existsSync(value) && statSync(value).isDirectory())) throw new UsageError(`--archive ${value}: no such directory (the archive root, holding TENANT/checkpoint; without --archive, DATA/archive)`);
  return value;
}
