/**
 * One scrape for the whole instance when `SWITCHBOARD_WORKERS` runs several gateway processes on one port.
 * prom-client's `AggregatorRegistry` does the work: in the primary, `clusterMetrics()` asks every worker for
 * its registry as JSON over the cluster IPC channel and merges them by each metric's `aggregator` (counters
 * and histograms sum). Only the primary can ask, so a worker that receives `GET /api/v1/metrics` forwards the
 * scrape to the primary (one request, one answer, on the same channel) and serves the text it gets back. The
 * metrics listener (`SWITCHBOARD_METRICS_PORT`) is the primary's own in cluster mode. The primary loads
 * prom-client on the first scrape only (some 7 MB of its resident memory, never used without a scrape).
 */
import cluster, { type Worker } from 'node:cluster';
import type { AggregatorRegistry, PrometheusContentType, Registry } from 'prom-client';

const SCRAPE_REQUEST = 'switchboard:metrics-request';
const SCRAPE_ANSWER = 'switchboard:metrics-answer';
/**
 * How long a worker waits for the primary's answer. prom-client gives up on a worker that does not report
 * after 5 seconds (not configurable) and the primary answers then; this only covers a primary that is stuck.
 */
const ANSWER_WAIT_MS = 7_000;

/** A worker asks the primary for the cluster's metrics. */
interface ScrapeRequest {
  type: typeof SCRAPE_REQUEST;
  id: number;
}

/** The primary's answer: the exposition text, or why there is none. */
type ScrapeAnswer = { type: typeof SCRAPE_ANSWER; id: number } & (Exposition | { error: string });

/** The cluster's metrics could not be collected; the message says why and is safe to show. */
export class ClusterMetricsError extends Error {}

/** One Prometheus text exposition and its content type. */
export interface Exposition {
  text: string;
  contentType: string;
}

/** Produces one exposition. */
export type ScrapeMetrics = () => Promise<Exposition>;

function isMessage<T extends { type: string }>(message: unknown, type: T['type']): message is T {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;
}

/**
 * In the primary: answers the workers' forwarded scrapes and returns the scrape of every worker's metrics.
 * A scrape fails (never hangs) when a worker does not report within prom-client's 5 seconds, or at once when
 * a worker exits while it is collected: its counters leave the sum, so that scrape would be wrong.
 */
export function aggregateWorkerMetrics(): ScrapeMetrics {
  let aggregator: Promise<AggregatorRegistry<PrometheusContentType>> | undefined;
  // The scrapes under way, failed by a worker's exit: one listener for all of them.
  const collecting = new Set<(error: Error) => void>();
  cluster.on('exit', (worker: Worker) => {
    for (const fail of collecting) fail(new ClusterMetricsError(`gateway worker ${worker.process.pid} exited while the metrics were collected`));
  });
  const scrape: ScrapeMetrics = async () => {
    const registry = await (aggregator ??= import('prom-client').then((promClient) => new promClient.AggregatorRegistry()));
    return new Promise<Exposition>((resolve, reject) => {
      collecting.add(reject);
      registry
        .clusterMetrics()
        .then(
          (text) => resolve({ text, contentType: registry.contentType }),
          (error: Error) => reject(new ClusterMetricsError(`a gateway worker did not report its metrics (${error.message})`)),
        )
        .finally(() => collecting.delete(reject));
    });
  };
  cluster.on('message', (worker: Worker, message: unknown) => {
    if (!isMessage<ScrapeRequest>(message, SCRAPE_REQUEST)) return;
    void scrape()
      .then(
        (exposition): ScrapeAnswer => ({ type: SCRAPE_ANSWER, id: message.id, ...exposition }),
        (error: Error): ScrapeAnswer => ({ type: SCRAPE_ANSWER, id: message.id, error: error.message }),
      )
      .then((answer) => {
        // The asking worker may have exited meanwhile: nobody waits for this answer any more.
        if (worker.isConnected()) worker.send(answer, () => undefined);
      });
  });
  return scrape;
}

/**
 * In a worker, as early as possible: answers the primary's requests for this worker's metrics (with nothing
 * until `reportToPrimary` names the gateway's registry), so that a worker still starting does not make
 * every scrape wait for prom-client's timeout.
 */
export async function answerPrimaryMetricsRequests(): Promise<void> {
  const { AggregatorRegistry } = await import('prom-client');
  new AggregatorRegistry();
}

/**
 * In a worker: reports `registry` (not prom-client's global one) to the primary's aggregation and returns
 * the scrape of the whole cluster's metrics, asked of the primary.
 */
export async function reportToPrimary(registry: Registry): Promise<ScrapeMetrics> {
  await answerPrimaryMetricsRequests();
  (await import('prom-client')).AggregatorRegistry.setRegistries([registry]);
  const waiting = new Map<number, { resolve(exposition: Exposition): void; reject(error: Error): void }>();
  let nextId = 0;
  process.on('message', (message: unknown) => {
    if (!isMessage<ScrapeAnswer>(message, SCRAPE_ANSWER)) return;
    const pending = waiting.get(message.id);
    if (!pending) return;
    if ('text' in message) pending.resolve({ text: message.text, contentType: message.contentType });
    else pending.reject(new ClusterMetricsError(message.error));
  });
  process.on('disconnect', () => {
    for (const pending of waiting.values()) pending.reject(new ClusterMetricsError('the cluster primary is gone'));
  });
  return () =>
    new Promise<Exposition>((resolve, reject) => {
      if (!process.send || !process.connected) {
        reject(new ClusterMetricsError('the cluster primary is gone'));
        return;
      }
      const id = nextId++;
      const timer = setTimeout(() => settle.reject(new ClusterMetricsError(`the cluster primary did not answer within ${ANSWER_WAIT_MS} ms`)), ANSWER_WAIT_MS);
      const settle = {
        resolve: (exposition: Exposition) => {
          clearTimeout(timer);
          waiting.delete(id);
          resolve(exposition);
        },
        reject: (error: Error) => {
          clearTimeout(timer);
          waiting.delete(id);
          reject(error);
        },
      };
      waiting.set(id, settle);
      process.send({ type: SCRAPE_REQUEST, id } satisfies ScrapeRequest, undefined, undefined, (error: Error | null) => {
        if (error) settle.reject(new ClusterMetricsError('the scrape could not be sent to the cluster primary'));
      });
    });
}
