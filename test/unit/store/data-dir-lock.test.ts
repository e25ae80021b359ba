import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireDataDirectoryLock, DataDirectoryInUseError, LOCK_FILE_NAME } from '#src/store/data-dir-lock.ts';

const freshDir = () => mkdtempSync(join(tmpdir(), 'switchboard-lock-'));

describe('data directory lock', () => {
  it('is exclusive, and released on release', () => {
    const dataDir = freshDir();
    const lock = acquireDataDirectoryLock(dataDir, 'gateway');
    expect(JSON.parse(readFileSync(join(dataDir, LOCK_FILE_NAME), 'utf8'))).toMatchObject({ pid: process.pid, purpose: 'gateway' });
    expect(() => acquireDataDirectoryLock(dataDir, 'cli')).toThrow(DataDirectoryInUseError);
    lock.release();
    expect(existsSync(join(dataDir, LOCK_FILE_NAME))).toBe(false);
    acquireDataDirectoryLock(dataDir, 'cli').release();
  });

  it('refuses while another live process holds it, saying what to do', async () => {
    const dataDir = freshDir();
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    try {
      writeFileSync(join(dataDir, LOCK_FILE_NAME), JSON.stringify({ pid: child.pid, hostname: hostname(), purpose: 'gateway', startedAt: 'now' }));
      let message = '';
      try {
        acquireDataDirectoryLock(dataDir, 'cli');
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toContain(`in use by a running Switchboard gateway (pid ${child.pid}`);
      expect(message).toContain('Stop that process first');
      expect(message).toContain('HTTP API with a management key');
    } finally {
      child.kill();
    }
  });

  it('takes over a stale lock whose process is gone', async () => {
    const dataDir = freshDir();
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    await new Promise((resolve) => child.on('exit', resolve));
    writeFileSync(join(dataDir, LOCK_FILE_NAME), JSON.stringify({ pid: child.pid, hostname: hostname(), purpose: 'gateway', startedAt: 'then' }));
    const lock = acquireDataDirectoryLock(dataDir, 'cli');
    expect(JSON.parse(readFileSync(lock.path, 'utf8')).pid).toBe(process.pid);
    lock.release();
  });

  it('never takes over a lock from another host', () => {
    const dataDir = freshDir();
    writeFileSync(join(dataDir, LOCK_FILE_NAME), JSON.stringify({ pid: 1, hostname: 'elsewhere.example', purpose: 'gateway', startedAt: 'then' }));
    expect(() => acquireDataDirectoryLock(dataDir, 'cli')).toThrow(DataDirectoryInUseError);
  });
});
