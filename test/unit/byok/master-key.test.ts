import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMasterKey, MASTER_KEY_FILE_NAME, MasterKeyError, parseMasterKey } from '#src/byok/master-key.ts';

describe('parseMasterKey', () => {
  const bytes = randomBytes(32);
  it.each([
    ['hex', bytes.toString('hex')],
    ['base64', bytes.toString('base64')],
    ['base64url', bytes.toString('base64url')],
    ['base64 with spaces around', `  ${bytes.toString('base64')}\n`],
  ])('reads %s', (_name, text) => {
    expect(parseMasterKey(text).equals(bytes)).toBe(true);
  });
  it.each([['too short', randomBytes(16).toString('base64')], ['not a key', 'correct horse battery staple'], ['empty', '']])('rejects %s', (_name, text) => {
    expect(() => parseMasterKey(text)).toThrow(MasterKeyError);
  });
});

describe('loadMasterKey', () => {
  it('refuses PostgreSQL without SWITCHBOARD_MASTER_KEY, saying what to set', () => {
    expect(() => loadMasterKey({ driver: 'postgres' })).toThrow(/SWITCHBOARD_MASTER_KEY is required when DATABASE_URL is set/);
  });

  it('generates one key into the data directory, owner-only, and reuses it', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-master-'));
    const first = loadMasterKey({ driver: 'pglite', dataDir });
    expect(first.source).toBe('data-dir-generated');
    expect(statSync(join(dataDir, MASTER_KEY_FILE_NAME)).mode & 0o777).toBe(0o600);
    const second = loadMasterKey({ driver: 'pglite', dataDir });
    expect(second.source).toBe('data-dir-existing');
    expect(second.key.equals(first.key)).toBe(true);
    expect(second.id).toBe(first.id);
    expect(readFileSync(join(dataDir, MASTER_KEY_FILE_NAME), 'utf8')).not.toContain(first.id);
  });

  it('refuses a key file others can read', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-master-'));
    loadMasterKey({ driver: 'pglite', dataDir });
    chmodSync(join(dataDir, MASTER_KEY_FILE_NAME), 0o644);
    expect(() => loadMasterKey({ driver: 'pglite', dataDir })).toThrow(/chmod 600/);
  });

  it('prefers the environment value', () => {
    const key = randomBytes(32);
    const loaded = loadMasterKey({ driver: 'postgres', masterKey: key.toString('hex') });
    expect(loaded.source).toBe('environment');
    expect(loaded.key.equals(key)).toBe(true);
  });
});
