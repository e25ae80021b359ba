/**
 * Lets go of PGlite's file-system bundle once the embedded database runs. PGlite reads `pglite.data` (6 MB:
 * PostgreSQL's share and lib trees, time zones, ICU data) into one ArrayBuffer and mounts every file of it in its
 * in-memory file system as a view of that buffer, so the whole buffer stays resident for the life of the
 * process, although PostgreSQL reads almost none of those files after it has started. Here each such file
 * instead reads its bytes back from `pglite.data` on disk the first time it is opened, and the buffer is
 * detached, which frees it even though PGlite's start-up closures still refer to it. Every file stays readable
 * with the same content, so PostgreSQL behaves as before (bench/JOURNAL.md).
 *
 * It relies on the shape of PGlite 0.5's Emscripten file system (MEMFS nodes with `contents`/`usedBytes`); when
 * anything is not as expected it changes nothing.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';

/** A node of Emscripten's file system, as far as this module reads it. */
interface FsNode {
  mode: number;
  mounted?: unknown;
  contents?: unknown;
  usedBytes?: number;
}

/** The parts of Emscripten's FS object used here. */
interface EmscriptenFs {
  root: FsNode;
  isDir(mode: number): boolean;
  isFile(mode: number): boolean;
}

/** Where PGlite's bundle is on disk (next to its module, as PGlite itself resolves it). */
export function pgliteBundlePath(): string {
  return join(dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')), 'pglite.data');
}

function readRange(path: string, offset: number, length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  const fd = openSync(path, 'r');
  try {
    let done = 0;
    while (done < length) {
      const read = readSync(fd, bytes, done, length - done, offset + done);
      if (read === 0) throw new Error(`${path} ended at ${offset + done}, expected ${offset + length}`);
      done += read;
    }
  } finally {
    closeSync(fd);
  }
  return bytes;
}

/** Every in-memory file whose bytes are a view of a buffer of `size` bytes, walking directories but not mounts. */
function bundleFiles(fs: EmscriptenFs, size: number): FsNode[] {
  const found: FsNode[] = [];
  const visit = (node: FsNode, isRoot: boolean): void => {
    // Another file system (the data directory on disk, /proc, /dev) is mounted here: not the bundle's.
    if (!isRoot && node.mounted) return;
    if (fs.isDir(node.mode)) {
      if (typeof node.contents !== 'object' || node.contents === null) return;
      for (const child of Object.values(node.contents as Record<string, FsNode>)) visit(child, false);
    } else if (fs.isFile(node.mode) && node.contents instanceof Uint8Array && node.contents.buffer.byteLength === size) {
      found.push(node);
    }
  };
  visit(fs.root, true);
  return found;
}

/** Makes a file read its bytes from the bundle on disk when PostgreSQL first opens it, then keep them. */
function loadOnFirstRead(node: FsNode, path: string, offset: number, length: number): void {
  const settle = (value: unknown): void => {
    Object.defineProperty(node, 'contents', { value, writable: true, enumerable: true, configurable: true });
  };
  Object.defineProperty(node, 'contents', {
    enumerable: true,
    configurable: true,
    get() {
      const bytes = readRange(path, offset, length);
      settle(bytes);
      return bytes;
    },
    set: settle,
  });
}

/**
 * Replaces the in-memory copies of PGlite's bundled files with reads from disk on first use and frees the
 * bundle's buffer. Returns the number of bytes freed (0 when it changed nothing).
 */
export function releasePgliteFileBundle(client: PGlite, path: string = pgliteBundlePath()): number {
  const fs = (client as unknown as { mod?: { FS?: EmscriptenFs } }).mod?.FS;
  if (!fs?.root || typeof fs.isDir !== 'function' || typeof fs.isFile !== 'function') return 0;
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return 0;
  }
  const files = bundleFiles(fs, size);
  const first = files[0]?.contents as Uint8Array | undefined;
  if (!first) return 0;
  const bundle = first.buffer;
  if (!(bundle instanceof ArrayBuffer) || bundle.detached || files.some((node) => (node.contents as Uint8Array).buffer !== bundle)) return 0;
  // The buffer must be the file on disk, byte for byte where it is read back: checked on one file.
  const sample = first.subarray(0, Math.min(first.byteLength, 4096));
  if (!Buffer.from(readRange(path, first.byteOffset, sample.byteLength)).equals(sample)) return 0;
  for (const node of files) {
    const view = node.contents as Uint8Array;
    loadOnFirstRead(node, path, view.byteOffset, view.byteLength);
  }
  // Detaching frees the bytes now; PGlite's closures keep only an empty buffer.
  bundle.transfer(0);
  return size;
}
