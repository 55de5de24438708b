// Reading a log through its tile archive directory on Node: the archive view (archive-view.ts)
// over the files under `dir`. `log verify` and the background audit rebuild the tree over it, so
// every archived byte is checked against the signed checkpoints; what cannot be read is an `archive` finding.
import { join } from 'node:path';
import type { LogStorage } from '../log/index.js';
import { ArchiveFileError, MAX_ARCHIVE_CHECKPOINT_BYTES, MAX_ARCHIVE_TILE_BYTES, readArchiveFileSync } from './archive-file.js';
import { checkArchiveFilesOf, openArchiveViewOf, type ArchiveFinding, type ArchiveRead, type ArchiveView, type ArchiveViewOptions } from './archive-view.js';

export type { ArchiveFinding, ArchiveView, ArchiveViewOptions } from './archive-view.js';

/**
 * The files under `dir`, as the file-level attacker may have left them (archive-file.ts): a
 * missing one is undefined; a symlink, FIFO, directory or oversized file throws (and is a finding).
 */
function filesOf(dir: string): ArchiveRead {
  return (rel) => {
    try {
      return readArchiveFileSync(join(dir, rel), rel === 'checkpoint' ? MAX_ARCHIVE_CHECKPOINT_BYTES : MAX_ARCHIVE_TILE_BYTES);
    } catch (e) {
      if (e instanceof ArchiveFileError && e.code === 'ENOENT') return undefined;
      throw e;
    }
  };
}

/**
 * Opens the archive at `dir` over `storage`. Its checkpoint must verify with the log's keys, name
 * the log's origin and be the note the log stored at that size; otherwise nothing is read from
 * the archive and that is the finding.
 */
export function openArchiveView(dir: string, storage: LogStorage, opts: ArchiveViewOptions): ArchiveView {
  return openArchiveViewOf(filesOf(dir), storage, opts);
}

/** The partial tiles the archive's checkpoint needs, each byte for byte what the log gives. */
export function checkArchiveEdge(dir: string, view: ArchiveView): ArchiveFinding[] {
  return checkArchiveFilesOf(filesOf(dir), view.size, view.storage, 'edge');
}
