/**
 * Metrics of `SWITCHBOARD_WORKERS=2` with real processes: requests spread over both workers (which worker
 * accepted each connection is read from /proc), then every scrape, whichever worker serves it on the API port
 * and from the primary on `SWITCHBOARD_METRICS_PORT`, counts every request. A worker that exits during a
 * scrape gets a prompt 503 (the spec's error shape on the API port), never a hang, and once it is replaced
 * the scrape counts the requests of the worker left.
 */
import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { childProcesses, connectionOwner } from '#test/helpers/connection-owner.ts';
import { issueInferenceKey, processStore, startGatewayProcess, type GatewayProcess, type ProcessStore } from '#test/helpers/gateway-process.ts';
import { parseScrape } from '#test/helpers/prometheus-scrape.ts';
import { anthropicProviderYaml, catalogYaml, messageBody, modelYaml } from '#test/integration/routing/routing-support.ts';

const REQUESTS = 24;

/** An answer, and the process that held the server end of its connection. */
interface Call {
  status: number;
  text: string;
  owner: number | undefined;
}

// Needs PostgreSQL (workers refuse PGlite); in CI (CI=true) a missing DATABASE_URL fails here instead.
describe.skipIf(!process.env.DATABASE_URL && process.env.CI !== 'true')('metrics of two workers', () => {
  let upstream: FakeUpstream;
  let store: ProcessStore;
  let gateway: GatewayProcess;
  let apiKey: string;
  let metricsOrigin: string;
  let workers: number[];
  const servedBy = new Map<number | undefined, number>();

  beforeAll(async () => {
    if (!process.env.DATABASE_URL) throw new Error('CI=true but DATABASE_URL is not set: the workers metrics test must run in CI');
    upstream = await startFakeAnthropic({ whenEmpty: reply.fixture('anthropic-text') });
    store = await processStore('postgres');
    gateway = await startGatewayProcess({
      env: { ...store.env, SWITCHBOARD_WORKERS: '2', SWITCHBOARD_METRICS_PORT: '0' },
      catalogYaml: catalogYaml([anthropicProviderYaml('alpha', upstream)], [modelYaml('test/counted', [{ provider: 'alpha', model: 'up-counted', price: [1, 1] }])]),
    });
    apiKey = (await issueInferenceKey(gateway)).key;
    const listening = gateway.logs.filter((line) => line.includes('"metrics listening"'));
    // The primary listens; no worker does (each would answer with its own metrics otherwise).
    expect(listening).toHaveLength(1);
    metricsOrigin = (JSON.parse(listening[0] ?? '{}') as { origin: string }).origin;
    workers = childProcesses(gateway.child.pid ?? -1);
    expect(workers).toHaveLength(2);
  });
  afterAll(async () => {
    // A worker left stopped by a failed test would hold the shutdown for its whole grace period.
    for (const pid of workers ?? []) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // Gone already.
      }
    }
    await gateway?.stop();
    await Promise.all([upstream?.close(), store?.drop()]);
  });

  /** One request on a connection of its own (or `agent`'s), noting which process served it. */
  function call(url: string, options: { method?: string; headers?: Record<string, string>; body?: string; agent?: Agent } = {}): Promise<Call> {
    const agent = options.agent ?? new Agent({ keepAlive: true, maxSockets: 1 });
    const target = new URL(url);
    return new Promise<Call>((resolve, reject) => {
      const outgoing = request(url, { method: options.method ?? 'GET', agent, headers: options.headers }, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          // The kept-alive connection is still open: its server end belongs to the process that served it. The
          // primary is asked last: it may still hold a connection it has just handed to a worker.
          const owner = connectionOwner({ serverPort: Number(target.port), clientPort: outgoing.socket?.localPort ?? 0, candidates: [...workers, gateway.child.pid ?? -1] });
          resolve({ status: response.statusCode ?? 0, text, owner });
        });
      });
      outgoing.on('error', reject);
      outgoing.end(options.body);
    }).finally(() => {
      if (!options.agent) agent.destroy();
    });
  }

  const scrapeApi = (agent?: Agent) => call(`${gateway.baseUrl}/metrics`, { headers: { authorization: `Bearer ${gateway.management_key}` }, ...(agent ? { agent } : {}) });
  const scrapePort = () => call(`${metricsOrigin}/metrics`);

  it('every scrape counts the requests of both workers, on the API port and on the metrics port', async () => {
    const body = JSON.stringify(messageBody('test/counted'));
    const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    // Four connections at a time, each new: the primary hands them to the workers in turn.
    for (let sent = 0; sent < REQUESTS; sent += 4) {
      const calls = await Promise.all(Array.from({ length: 4 }, () => call(`${gateway.baseUrl}/messages`, { method: 'POST', headers, body })));
      for (const { status, owner } of calls) {
        expect(status).toBe(200);
        servedBy.set(owner, (servedBy.get(owner) ?? 0) + 1);
      }
    }
    expect([...servedBy.keys()].sort()).toEqual([...workers].sort());

    const scrapers = new Set<number | undefined>();
    for (let scrape = 0; scrape < 12 && (scrape < 6 || scrapers.size < 2); scrape += 1) {
      const { status, text, owner } = await scrapeApi();
      expect(status, text).toBe(200);
      scrapers.add(owner);
      const parsed = parseScrape(text);
      expect(parsed.value('switchboard_requests_total')).toBe(REQUESTS);
      expect(parsed.value('switchboard_requests_total', { outcome: 'success', code: '200', model: 'test/counted', provider: 'alpha' })).toBe(REQUESTS);
      expect(parsed.histogramCount('switchboard_request_duration_seconds')).toBe(REQUESTS);
    }
    // Both workers served scrapes, and each answered for the whole cluster.
    expect([...scrapers].sort()).toEqual([...workers].sort());

    for (let scrape = 0; scrape < 3; scrape += 1) {
      const { status, text, owner } = await scrapePort();
      expect(status, text).toBe(200);
      expect(owner).toBe(gateway.child.pid);
      const parsed = parseScrape(text);
      expect(parsed.value('switchboard_requests_total')).toBe(REQUESTS);
      expect(parsed.histogramCount('switchboard_request_duration_seconds')).toBe(REQUESTS);
    }
  });

  it('a worker exiting during a scrape gets a prompt 503, and the replaced worker starts from zero', async () => {
    // A connection kept open to one worker; the other stopped, so it cannot report, then killed mid-scrape.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const health = await call(`${gateway.baseUrl}/health`, { agent });
      const kept = health.owner;
      const other = workers.find((pid) => pid !== kept) ?? -1;
      expect(workers).toContain(kept);
      process.kill(other, 'SIGSTOP');
      const started = Date.now();
      const answers = Promise.all([scrapeApi(agent), scrapePort()]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      process.kill(other, 'SIGKILL');
      const [api, port] = await answers;
      // Sooner than prom-client's 5 s timeout for a silent worker.
      expect(Date.now() - started).toBeLessThan(4_000);
      expect(api.status, api.text).toBe(503);
      expect(api.owner).toBe(kept);
      const error = (JSON.parse(api.text) as { error: { code: number; message: string } }).error;
      expect(error.code).toBe(503);
      expect(error.message).toContain(`gateway worker ${other} exited while the metrics were collected`);
      expect(port.status).toBe(503);
      expect(port.text).toContain(`gateway worker ${other} exited while the metrics were collected`);

      // The primary starts another worker; once it serves, every scrape counts what the worker left served.
      const listening = () => gateway.logs.filter((line) => line.includes('"switchboard listening"')).length;
      await expect.poll(listening, { timeout: 15_000, interval: 100 }).toBe(3);
      for (let scrape = 0; scrape < 4; scrape += 1) {
        const answer = await (scrape % 2 === 0 ? scrapeApi() : scrapePort());
        expect(answer.status, answer.text).toBe(200);
        expect(parseScrape(answer.text).value('switchboard_requests_total')).toBe(servedBy.get(kept));
      }
    } finally {
      agent.destroy();
    }
  });
});
