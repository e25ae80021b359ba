/**
 * SIGHUP to `switchboard serve` (the real command, as a child process): what `systemctl reload` sends (and a
 * closing terminal). The configuration is read once at start, so there is nothing to reload; the gateway
 * says so in a log line and keeps serving. Node's default for SIGHUP ended the process at once: the requests
 * in flight cut, the records waiting for the database lost.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { processStore, startGatewayProcess, type GatewayProcess, type ProcessStore } from '#test/helpers/gateway-process.ts';

let store: ProcessStore;
let gateway: GatewayProcess;

beforeAll(async () => {
  store = await processStore('pglite');
  gateway = await startGatewayProcess({ env: { ...store.env, PORT: '0' } });
});
afterAll(async () => {
  if (gateway?.child.exitCode === null) await gateway.stop('SIGTERM');
  await store?.drop();
});

it('keeps serving after SIGHUP, saying the configuration is read only at start', async () => {
  gateway.child.kill('SIGHUP');
  await expect.poll(() => gateway.logs.some((line) => line.includes('"SIGHUP: nothing is reloaded')), { timeout: 5_000 }).toBe(true);
  const health = await fetch(`${gateway.baseUrl}/health`);
  expect(health.status).toBe(200);
  expect(gateway.child.exitCode).toBeNull();
  expect(await gateway.stop('SIGTERM')).toBe(0);
});
