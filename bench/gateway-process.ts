/**
 * Child process: the real gateway as production runs it (`startServer`, request validation on, response
 * validation off, logging at `warn`), on a fresh PGlite data dir in a temporary folder, with a catalog file
 * pointing `anthropic` at the bench upstream with a shared key. It creates an account (`initAccount`) and a
 * BYOK Anthropic credential through `POST /byok`, so every measured request authenticates a real key, reads
 * the caller's credentials and decrypts the BYOK key. One checked request proves the BYOK key is the one used.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '#src/config.ts';
import { startServer } from '#src/server.ts';
import { initAccount } from '#src/keys/accounts.ts';
import { failStart, serveParent } from './child-process.ts';

/** What the gateway child reports to the parent once it serves. */
export interface GatewayReady {
  origin: string;
  /** An inference key of the bench account. */
  apiKey: string;
  /** The model slug the bench requests, routed to the bench upstream. */
  model: string;
}

/** The model the bench asks the gateway for. */
export const BENCH_MODEL = 'anthropic/claude-sonnet-4.5';

async function postJson(url: string, key: string, body: unknown, extraHeaders: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...extraHeaders },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
}

async function main(): Promise<void> {
  const upstreamOrigin = process.env.BENCH_UPSTREAM_ORIGIN;
  if (!upstreamOrigin) throw new Error('BENCH_UPSTREAM_ORIGIN is not set');
  const observability = process.env.BENCH_OBSERVABILITY === 'on';
  const directory = mkdtempSync(join(tmpdir(), 'switchboard-bench-'));
  const catalogPath = join(directory, 'switchboard.yaml');
  writeFileSync(
    catalogPath,
    [
      'providers:',
      `  anthropic: { base_url: "${upstreamOrigin}", api_key: "sk-ant-bench-shared-key-0000000001" }`,
      'models:',
      `  ${BENCH_MODEL}:`,
      '    endpoints:',
      '      - { provider: anthropic, model: claude-sonnet-4-5, pricing: { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 } }',
      '',
    ].join('\n'),
  );
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    SWITCHBOARD_DATA_DIR: join(directory, 'data'),
    SWITCHBOARD_CONFIG: catalogPath,
    SWITCHBOARD_MASTER_KEY: randomBytes(32).toString('base64'),
    SWITCHBOARD_LOG_LEVEL: 'warn',
    SWITCHBOARD_VALIDATE_RESPONSES: 'false',
    SWITCHBOARD_GENERATION_RECORDS: observability ? 'on' : 'off',
  });
  const server = await startServer({ config, env: {} });
  const account = await initAccount(server.database, { name: 'bench' });

  const created = await postJson(`${server.origin}/api/v1/byok`, account.management_key, {
    provider: 'anthropic',
    key: 'sk-ant-bench-byok-key-0000000002',
    name: 'bench',
  });
  if (created.status !== 201) throw new Error(`POST /byok answered ${created.status}: ${JSON.stringify(created.body)}`);
  if (observability) {
    const destination = await postJson(`${server.origin}/api/v1/observability/destinations`, account.management_key, {
      name: 'bench collector',
      kind: 'otlp',
      endpoint: `${upstreamOrigin}/v1/traces`,
    });
    if (destination.status !== 201) throw new Error(`POST /observability/destinations answered ${destination.status}: ${JSON.stringify(destination.body)}`);
  }

  // The credential must be the one routing picks, or the bench would not measure the lookup it claims to.
  const checked = await postJson(
    `${server.origin}/api/v1/messages`,
    account.api_key,
    { model: BENCH_MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'check' }] },
    { 'x-gateway-metadata': 'enabled' },
  );
  const metadata = (checked.body as { gateway_metadata?: { is_byok?: unknown } } | undefined)?.gateway_metadata;
  if (checked.status !== 200 || metadata?.is_byok !== true) {
    throw new Error(`the check request did not use the BYOK credential: ${checked.status} ${JSON.stringify(checked.body)}`);
  }

  serveParent({ origin: server.origin, apiKey: account.api_key, model: BENCH_MODEL } satisfies GatewayReady, async () => {
    await server.close();
    rmSync(directory, { recursive: true, force: true });
  });
}

main().catch(failStart);
