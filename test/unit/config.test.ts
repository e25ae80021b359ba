/** The configuration read from the environment: `SWITCHBOARD_WORKERS` (several workers need PostgreSQL), private destinations, the Redis command timeout. */
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadConfig, parsePrivateDestinations, parseWorkers } from '#src/config.ts';

const POSTGRES = 'postgres://postgres@127.0.0.1:5432/test';

describe('parseWorkers', () => {
  it.each([
    [undefined, undefined, 1],
    ['', undefined, 1],
    ['1', undefined, 1],
    ['3', POSTGRES, 3],
    ['auto', POSTGRES, availableParallelism()],
  ])('SWITCHBOARD_WORKERS=%s (DATABASE_URL %s) runs %i', (raw, databaseUrl, expected) => {
    expect(parseWorkers(raw, databaseUrl)).toBe(expected);
  });

  it.each([['0'], ['-2'], ['1.5'], ['two'], ['2x']])('refuses SWITCHBOARD_WORKERS=%s', (raw) => {
    expect(() => parseWorkers(raw, POSTGRES)).toThrow(`SWITCHBOARD_WORKERS must be a positive integer or auto, got "${raw}"`);
  });

  it('refuses several workers on the embedded database and says what to do', () => {
    expect(() => parseWorkers('2', undefined)).toThrow(/SWITCHBOARD_WORKERS=2 needs PostgreSQL \(DATABASE_URL\).*Set DATABASE_URL, or run one worker/);
  });

  it('is read by loadConfig', () => {
    expect(loadConfig({ SWITCHBOARD_WORKERS: '2', DATABASE_URL: POSTGRES, SWITCHBOARD_MASTER_KEY: 'x' }).workers).toBe(2);
    expect(loadConfig({}).workers).toBe(1);
  });
});

describe('SWITCHBOARD_ALLOW_PRIVATE_DESTINATIONS', () => {
  it.each([
    [undefined, []],
    ['', []],
    ['false', []],
    ['true', [{ kind: 'cidr', range: '0.0.0.0/0' }, { kind: 'cidr', range: '::/0' }]],
    ['127.0.0.1, 10.0.0.0/8,collector.internal', [{ kind: 'cidr', range: '127.0.0.1/32' }, { kind: 'cidr', range: '10.0.0.0/8' }, { kind: 'host', host: 'collector.internal' }]],
  ])('reads %j', (raw, expected) => {
    expect(parsePrivateDestinations(raw)).toEqual(expected);
  });

  it('refuses an entry that is neither an address, a range nor a host name', () => {
    expect(() => parsePrivateDestinations('10.0.0.0/99')).toThrow(/SWITCHBOARD_ALLOW_PRIVATE_DESTINATIONS: an entry is not a valid CIDR range/);
  });
});

describe('SWITCHBOARD_REDIS_COMMAND_TIMEOUT_MS', () => {
  it('defaults to a second and takes a positive number of milliseconds', () => {
    expect(loadConfig({}).redisCommandTimeoutMs).toBe(1_000);
    expect(loadConfig({ SWITCHBOARD_REDIS_COMMAND_TIMEOUT_MS: '15000' }).redisCommandTimeoutMs).toBe(15_000);
  });

  it.each([['0'], ['-1'], ['1.5'], ['soon']])('refuses %s', (raw) => {
    expect(() => loadConfig({ SWITCHBOARD_REDIS_COMMAND_TIMEOUT_MS: raw })).toThrow(`SWITCHBOARD_REDIS_COMMAND_TIMEOUT_MS must be a positive integer, got ${JSON.stringify(raw)}`);
  });
});
