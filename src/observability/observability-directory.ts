/**
 * What each workspace wants observed, held in memory: its content policy and its broadcast destinations
 * (secrets decrypted once, when loaded). The request path reads it with one Map lookup. It is reloaded whole
 * (the tables are small) after a local change, on a change announced by another instance, and every minute
 * as a safety net while the change feed is down.
 */
import type { Logger } from '#src/logger.ts';
import type { Database } from '#src/store/database.ts';
import { observabilityDestinations, workspaceSettings } from '#src/store/schema.ts';
import { eq } from '#src/store/drizzle.ts';
import type { KeyVault } from '#src/byok/key-vault.ts';
import type { ContentPolicy } from '#src/observability/build-generation-record.ts';
import type { ActiveDestination } from '#src/observability/destinations/active-destination.ts';
import type { FileDestination } from '#src/observability/destinations/destination-config.ts';
import { openPlainDestinationSecrets, wrapSecrets, type PlainDestinationSecrets } from '#src/observability/destinations/destination-secrets.ts';
import { joinEndpoint } from '#src/observability/destinations/endpoint-query.ts';
import { DEFAULT_CONTENT_RETENTION_DAYS } from '#src/observability/workspace-settings-service.ts';

/** Everything observability needs to know about one workspace. */
export interface WorkspacePolicy {
  content: ContentPolicy;
  destinations: readonly ActiveDestination[];
  /** Whether a stream's content must be collected (stored, or wanted by a destination). */
  capturesContent: boolean;
}

interface Snapshot {
  policies: Map<string, WorkspacePolicy>;
  fallback: WorkspacePolicy;
}

const RELOAD_INTERVAL_MS = 60_000;

/** The in-memory directory. */
export class ObservabilityDirectory {
  private snapshot: Snapshot;
  private loading: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly database: Database;
  private readonly vault: KeyVault;
  private readonly fileDestinations: readonly FileDestination[];
  private readonly logger: Logger;
  private readonly listeners: ((destinations: readonly ActiveDestination[]) => Promise<void> | void)[] = [];

  constructor(options: { database: Database; vault: KeyVault; fileDestinations: readonly FileDestination[]; logger: Logger }) {
    this.database = options.database;
    this.vault = options.vault;
    this.fileDestinations = options.fileDestinations;
    this.logger = options.logger;
    this.snapshot = this.build(new Map(), new Map());
  }

  /** The policy of a workspace (the defaults, plus the file's destinations, when it has none of its own). */
  policyFor(workspaceId: string): WorkspacePolicy {
    return this.snapshot.policies.get(workspaceId) ?? this.snapshot.fallback;
  }

  /** Called after each load with every destination in use (to open or close their channels). */
  onLoaded(listener: (destinations: readonly ActiveDestination[]) => Promise<void> | void): void {
    this.listeners.push(listener);
  }

  /** Loads now and then every minute; subscribe it to the change feed for the rest. */
  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), RELOAD_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Reloads; concurrent calls share a load, and a call during a load causes one more. */
  refresh(): Promise<void> {
    if (this.loading) {
      this.again = true;
      return this.loading;
    }
    this.loading = (async () => {
      do {
        this.again = false;
        await this.load().catch((error: unknown) => this.logger.warn('observability settings could not be reloaded; the previous ones stay', { error }));
      } while (this.again);
    })().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async load(): Promise<void> {
    const settings = await this.database.db.select().from(workspaceSettings);
    const rows = await this.database.db.select().from(observabilityDestinations).where(eq(observabilityDestinations.disabled, false));
    const content = new Map(settings.map((row) => [row.workspaceId, { storeContent: row.storeContent, retentionDays: row.contentRetentionDays }]));
    const destinations = new Map<string, ActiveDestination[]>();
    for (const row of rows) {
      let plain: PlainDestinationSecrets;
      try {
        plain = openPlainDestinationSecrets(this.vault, row.id, { keyCiphertext: row.secretCiphertext, wrappedDataKey: row.wrappedDataKey, masterKeyId: row.masterKeyId });
      } catch (error) {
        this.logger.warn('a broadcast destination cannot be used: its secrets do not open', { destination_id: row.id, error });
        continue;
      }
      const active: ActiveDestination = {
        id: row.id,
        name: row.name,
        kind: row.kind,
        endpoint: joinEndpoint(row.endpoint, plain.endpoint_tail, plain.endpoint_user_info),
        protocol: row.protocol ?? 'http/protobuf',
        publicKey: row.publicKey,
        secrets: wrapSecrets(plain),
        samplingRate: row.samplingRate,
        includeContent: row.includeContent,
        revision: `${row.version}`,
      };
      destinations.set(row.workspaceId, [...(destinations.get(row.workspaceId) ?? []), active]);
    }
    this.snapshot = this.build(content, destinations);
    const all = new Map<string, ActiveDestination>();
    for (const policy of [this.snapshot.fallback, ...this.snapshot.policies.values()]) for (const destination of policy.destinations) all.set(destination.id, destination);
    for (const listener of this.listeners) await listener([...all.values()]);
  }

  private build(content: Map<string, ContentPolicy>, destinations: Map<string, ActiveDestination[]>): Snapshot {
    const defaults: ContentPolicy = { storeContent: false, retentionDays: DEFAULT_CONTENT_RETENTION_DAYS };
    const policyOf = (workspaceId: string | null): WorkspacePolicy => {
      const fromFile = this.fileDestinations.filter((entry) => entry.workspaces === null || (workspaceId !== null && entry.workspaces.includes(workspaceId)));
      const all = [...fromFile.map((entry) => entry.destination), ...(workspaceId === null ? [] : (destinations.get(workspaceId) ?? []))];
      const policy = (workspaceId === null ? undefined : content.get(workspaceId)) ?? defaults;
      return { content: policy, destinations: all, capturesContent: policy.storeContent || all.some((destination) => destination.includeContent) };
    };
    const workspaces = new Set([...content.keys(), ...destinations.keys(), ...this.fileDestinations.flatMap((entry) => entry.workspaces ?? [])]);
    return { policies: new Map([...workspaces].map((id) => [id, policyOf(id)])), fallback: policyOf(null) };
  }
}
