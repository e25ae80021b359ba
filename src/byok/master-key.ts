/**
 * The master key that wraps every credential's data key. It comes from `SWITCHBOARD_MASTER_KEY` (32 bytes,
 * base64 or hex). In embedded mode without it, one is generated once into the data directory, readable by
 * the owner only; on PostgreSQL the gateway refuses to start without it, because instances sharing a database
 * must share the key and a key generated on one machine would strand every other instance.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { openSync, readFileSync, statSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';

/** The file holding a generated master key inside the data directory. */
export const MASTER_KEY_FILE_NAME = 'master.key';

/** A loaded master key and its public identifier (stored with every envelope it wraps). */
export interface MasterKey {
  key: Buffer;
  /** A fingerprint that identifies the key without revealing it. */
  id: string;
  /** Where it came from, for the start-up log line. */
  source: 'environment' | 'data-dir-existing' | 'data-dir-generated';
}

/** Thrown when no usable master key is configured; its message says how to fix it. */
export class MasterKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MasterKeyError';
  }
}

/** Parses 32 bytes given as 64 hex characters or as base64 / base64url. */
export function parseMasterKey(raw: string, origin = 'SWITCHBOARD_MASTER_KEY'): Buffer {
  const text = raw.trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) {
    const decoded = Buffer.from(text.replaceAll('-', '+').replaceAll('_', '/'), 'base64');
    if (decoded.length === 32) return decoded;
  }
  throw new MasterKeyError(
    `${origin} must be 32 random bytes, written as 64 hex characters or as base64 (e.g. the output of \`openssl rand -base64 32\`).`,
  );
}

/** The master key's fingerprint: an HMAC of a fixed label, so it reveals nothing about the key. */
export function masterKeyId(key: Buffer): string {
  return createHmac('sha256', key).update('switchboard master key id v1').digest('hex').slice(0, 16);
}

function readOrCreateKeyFile(dataDir: string): { key: Buffer; created: boolean } {
  const path = join(dataDir, MASTER_KEY_FILE_NAME);
  try {
    const descriptor = openSync(path, 'wx', 0o600);
    const key = randomBytes(32);
    writeSync(descriptor, `${key.toString('base64')}\n`);
    closeSync(descriptor);
    return { key, created: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  if ((statSync(path).mode & 0o077) !== 0) {
    throw new MasterKeyError(`${path} is readable by other users; run \`chmod 600 ${path}\` and start again.`);
  }
  return { key: parseMasterKey(readFileSync(path, 'utf8'), path), created: false };
}

/**
 * Loads the master key: from the environment value when given; else, in embedded mode, from (or newly into)
 * the data directory; else (PostgreSQL) throws a {@link MasterKeyError} that says what to set.
 */
export function loadMasterKey(options: { masterKey?: string | undefined; dataDir?: string | undefined; driver: 'pglite' | 'postgres' }): MasterKey {
  if (options.masterKey) {
    const key = parseMasterKey(options.masterKey);
    return { key, id: masterKeyId(key), source: 'environment' };
  }
  if (options.driver === 'postgres' || !options.dataDir) {
    throw new MasterKeyError(
      'SWITCHBOARD_MASTER_KEY is required when DATABASE_URL is set: provider keys are encrypted with it, and every ' +
        'gateway instance sharing the database needs the same one. Generate one with `openssl rand -base64 32`, keep ' +
        'it in your secret store, and set SWITCHBOARD_MASTER_KEY on every instance.',
    );
  }
  const { key, created } = readOrCreateKeyFile(options.dataDir);
  return { key, id: masterKeyId(key), source: created ? 'data-dir-generated' : 'data-dir-existing' };
}
