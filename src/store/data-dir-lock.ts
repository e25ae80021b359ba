/**
 * An exclusive lock on a PGlite data directory. PGlite is one process's database and does not guard its
 * directory: a second process would open it silently and corrupt it. The lock is a file created with O_EXCL
 * holding the owner's pid; a lock whose pid no longer runs on this host is stale and taken over.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/** The lock file's name inside the data directory. */
export const LOCK_FILE_NAME = 'switchboard.lock';

/** What the lock file records about its owner. */
export interface LockOwner {
  pid: number;
  hostname: string;
  /** What holds it: `gateway`, `cli`, ... (for the refusal message). */
  purpose: string;
  startedAt: string;
}

/** Thrown when another live process holds the data directory. Its message says what to do instead. */
export class DataDirectoryInUseError extends Error {
  readonly owner: LockOwner | undefined;

  constructor(dataDir: string, owner: LockOwner | undefined) {
    const who = owner ? `a running Switchboard ${owner.purpose} (pid ${owner.pid} on ${owner.hostname}, since ${owner.startedAt})` : 'another process';
    super(
      `The data directory ${dataDir} is in use by ${who}. PGlite serves one process per data directory. ` +
        'Stop that process first, or manage keys and credentials through the running gateway\'s HTTP API ' +
        'with a management key (POST /api/v1/keys, /api/v1/byok). ' +
        `If no Switchboard process is running, delete ${join(dataDir, LOCK_FILE_NAME)}.`,
    );
    this.name = 'DataDirectoryInUseError';
    this.owner = owner;
  }
}

/** A held lock; `release` is idempotent and also runs when the process exits. */
export interface DataDirectoryLock {
  path: string;
  release(): void;
}

function readOwner(path: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockOwner>;
    if (typeof owner.pid !== 'number' || typeof owner.hostname !== 'string') return undefined;
    return { pid: owner.pid, hostname: owner.hostname, purpose: owner.purpose ?? 'process', startedAt: owner.startedAt ?? 'unknown' };
  } catch {
    return undefined;
  }
}

/** True when a process with this pid runs on this host (EPERM: it runs, as another user). */
export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isStale(owner: LockOwner | undefined): boolean {
  // A lock from another host (a shared volume) cannot be checked: never treat it as stale.
  if (!owner) return false;
  return owner.hostname === hostname() && owner.pid !== process.pid && !processIsAlive(owner.pid);
}

/**
 * Takes the lock on `dataDir` for this process or throws {@link DataDirectoryInUseError}. A stale lock (its
 * pid is gone) is removed and taken. The directory must exist.
 */
export function acquireDataDirectoryLock(dataDir: string, purpose: string): DataDirectoryLock {
  const path = join(dataDir, LOCK_FILE_NAME);
  const owner: LockOwner = { pid: process.pid, hostname: hostname(), purpose, startedAt: new Date().toISOString() };
  for (let attempt = 0; attempt < 3; attempt += 1) {
    let descriptor: number;
    try {
      descriptor = openSync(path, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const current = readOwner(path);
      if (current?.pid === process.pid && current.hostname === owner.hostname) {
        throw new DataDirectoryInUseError(dataDir, current);
      }
      if (!isStale(current)) throw new DataDirectoryInUseError(dataDir, current);
      rmSync(path, { force: true });
      continue;
    }
    writeSync(descriptor, JSON.stringify(owner));
    closeSync(descriptor);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      process.off('exit', release);
      // Only remove the file if it is still ours (a stale-lock takeover by another process replaces it).
      if (readOwner(path)?.pid === process.pid) rmSync(path, { force: true });
    };
    process.on('exit', release);
    return { path, release };
  }
  throw new DataDirectoryInUseError(dataDir, readOwner(path));
}
