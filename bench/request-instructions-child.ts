/**
 * The measured side of bench/request-instructions.ts, run under valgrind: the real gateway
 * (src/serve/start-gateway.ts, as `switchboard serve` starts it, on a fresh bench database) and its client in
 * one process, the bench's fake upstream in a child of its own. The client is an undici pool of one
 * connection sending the bench's JSON request (bench/measure.ts) one at a time, so a count is the gateway's
 * whole request plus a client's fixed share, the same for every commit. It warms up unmeasured, then tells its
 * parent when each round is about to start and how many requests it ran.
 */
import { Pool } from 'undici';
import { loadConfig } from '#src/config.ts';
import { createLogger } from '#src/logger.ts';
import { startGateway } from '#src/serve/start-gateway.ts';
import { BENCH_MODEL } from './bench-models.ts';
import { prepareGateway, type BenchDatabase } from './gateway-setup.ts';
import { requestBody } from './measure.ts';
import { startUpstream } from './targets.ts';

/** What the parent asks of the child. */
export interface RequestChildOptions {
  requests: number;
  warmup: number;
  rounds: number;
  database: BenchDatabase;
}

const nextMessage = () => new Promise<unknown>((resolve) => process.once('message', resolve));

/** Runs the warm-up and the measured rounds, then stops everything it started. */
export async function runRequestChild(options: RequestChildOptions): Promise<void> {
  const upstream = await startUpstream({});
  // A full batch of records (500) is written when it fills, as under production load; no flush timer in between.
  const setup = await prepareGateway({ upstreamOrigin: upstream.child.ready.origin, database: options.database, extraEnv: { SWITCHBOARD_WORKERS: '1', SWITCHBOARD_RECORD_FLUSH_MS: '600000' } });
  try {
    // A single gateway keeps its pins in process (no REDIS_URL), as bench/targets.ts starts it.
    Object.assign(process.env, { REDIS_URL: '', DATABASE_URL: '' }, setup.env);
    const config = loadConfig(process.env);
    const gateway = await startGateway({ config, logger: createLogger({ level: config.logLevel }), env: process.env });
    const pool = new Pool(gateway.origin, { connections: 1 });
    const post = async (path: string, key: string, body: string): Promise<void> => {
      const response = await pool.request({ path, method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body });
      const text = await response.body.text();
      if (response.statusCode >= 300) throw new Error(`${path} answered ${response.statusCode}: ${text}`);
    };
    // The bench's BYOK key, as bench/targets.ts adds it: every attempt opens it.
    await post('/api/v1/byok', setup.managementKey, JSON.stringify({ provider: 'anthropic', key: 'sk-ant-bench-byok-key-0000000002', name: 'bench' }));
    const body = requestBody(BENCH_MODEL, false);
    for (let index = 0; index < options.warmup; index += 1) await post('/api/v1/messages', setup.apiKey, body);
    for (let round = 0; round < options.rounds; round += 1) {
      process.send?.({ ready: true });
      await nextMessage();
      for (let index = 0; index < options.requests; index += 1) await post('/api/v1/messages', setup.apiKey, body);
      process.send?.({ measured: options.requests });
      await nextMessage();
    }
    await pool.close();
    await gateway.close();
  } finally {
    await upstream.child.stop();
    await setup.dispose();
  }
}
