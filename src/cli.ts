#!/usr/bin/env node
/**
 * The `switchboard` command. `serve` (the default) starts the gateway; `init` and `keys` manage accounts and
 * gateway API keys directly in the database (the data directory of PGlite, or DATABASE_URL). PGlite serves one
 * process per data directory: while a gateway runs on it these commands refuse and point at the HTTP API.
 */
// First: it must run before a full garbage collection frees nextTick's maps (see the module).
import '#src/serve/tick-object-maps.ts';
import { parseArgs } from 'node:util';
import type { Database } from '#src/store/database.ts';
import type { ListPosition } from '#src/http/list-cursor.ts';
import { DataDirectoryInUseError } from '#src/store/data-dir-lock.ts';
import { runServeCommand } from '#src/cli-serve.ts';
import { accountOption, runUsageCommand, UsageCommandError } from '#src/cli-usage.ts';

const USAGE = `Usage:
  switchboard [serve]                                   start the gateway (the default)
  switchboard init --name <account> [--json]            create an account with a management and an inference key
  switchboard keys create --account <id> --kind management|inference [--name <name>] [--json]
  switchboard keys list --account <id> [--json]
  switchboard keys revoke <hash>
  switchboard usage [--account <id>] [--from <date>] [--to <date>] [--by day|model|provider|key] [--json]
                                                        requests, tokens and cost from the generation records

Options for init, keys and usage:
  --data-dir <path>   PGlite data directory (default: SWITCHBOARD_DATA_DIR or ./.switchboard)
  DATABASE_URL        use PostgreSQL instead of PGlite

Raw keys are printed once and never again: only their SHA-256 hash is stored.`;

/** A mistake in the command line: printed with the usage, exit code 2. */
class UsageError extends Error {}

type Output = (text: string) => void;

// The store and key modules load only for the commands that use them: `serve` loads what it serves with,
// and a cluster primary none of it.
async function withDatabase<T>(dataDir: string | undefined, run: (database: Database) => Promise<T>): Promise<T> {
  const { openDatabase, defaultDataDir } = await import('#src/store/database.ts');
  const database = await openDatabase({
    dataDir: dataDir ?? defaultDataDir(),
    databaseUrl: process.env.DATABASE_URL || undefined,
    purpose: 'cli',
  });
  try {
    return await run(database);
  } finally {
    await database.close();
  }
}

function required(value: string | undefined, name: string): string {
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

async function runInit(args: string[], print: Output): Promise<void> {
  const { values } = parseArgs({ args, options: { name: { type: 'string' }, json: { type: 'boolean' }, 'data-dir': { type: 'string' } } });
  const name = required(values.name, 'name');
  const { initAccount } = await import('#src/keys/accounts.ts');
  const result = await withDatabase(values['data-dir'], (database) => initAccount(database, { name }));
  if (values.json) {
    print(JSON.stringify(result, null, 2));
    return;
  }
  print(
    [
      `Created account ${result.account_id} (workspace ${result.workspace_id}).`,
      `Management key: ${result.management_key}`,
      `Inference key:  ${result.api_key}`,
      `Inference key hash: ${result.api_key_hash}`,
      'Store both keys now: they are not shown again.',
    ].join('\n'),
  );
}

async function runKeys(args: string[], print: Output): Promise<void> {
  const [action, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { account: { type: 'string' }, kind: { type: 'string' }, name: { type: 'string' }, json: { type: 'boolean' }, 'data-dir': { type: 'string' } },
  });
  const dataDir = values['data-dir'];
  const { findLiveKey, issueApiKey, listApiKeys, revokeApiKey } = await import('#src/keys/key-service.ts');
  if (action === 'create') {
    const accountId = required(accountOption(values.account), 'account');
    const kind = values.kind;
    if (kind !== 'management' && kind !== 'inference') throw new UsageError('--kind must be management or inference');
    const issued = await withDatabase(dataDir, (database) => issueApiKey(database, { accountId, kind, name: values.name ?? null }));
    print(values.json ? JSON.stringify(issued, null, 2) : `Created ${issued.kind} key ${issued.key}\nHash: ${issued.hash}\nStore it now: it is not shown again.`);
    return;
  }
  if (action === 'list') {
    const accountId = required(accountOption(values.account), 'account');
    const [{ createKeyUsageReader }, { readSpend }] = await Promise.all([import('#src/limits/key-usage.ts'), import('#src/limits/spend-ledger.ts')]);
    // Every live key, a page at a time by cursor (as GET /keys pages): a key issued or revoked meanwhile
    // neither hides nor repeats another.
    const keys = await withDatabase(dataDir, async (database) => {
      const usage = createKeyUsageReader({ ledger: { spendOf: (hashes, period) => readSpend(database, hashes, period) } });
      const all = [];
      let cursor: ListPosition | null = null;
      do {
        const page: Awaited<ReturnType<typeof listApiKeys>> = await listApiKeys(database, accountId, { offset: 0, limit: 1_000, cursor: cursor ?? undefined }, usage);
        all.push(...page.keys);
        cursor = page.nextPosition;
      } while (cursor !== null);
      return all;
    });
    if (values.json) print(JSON.stringify(keys, null, 2));
    else print(keys.map((key) => `${key.hash}  ${key.kind.padEnd(10)}  ${key.created_at}  ${key.name ?? ''}`).join('\n') || 'No live keys.');
    return;
  }
  if (action === 'revoke') {
    const account = accountOption(values.account);
    const hash = positionals[0];
    if (!hash || !/^[a-f0-9]{64}$/.test(hash)) throw new UsageError('keys revoke needs the key hash: 64 lowercase hexadecimal characters');
    await withDatabase(dataDir, async (database) => {
      const accountId = account ?? (await findLiveKey(database, hash))?.accountId;
      if (!accountId) throw new Error(`No live key has the hash ${hash}.`);
      await revokeApiKey(database, accountId, hash);
    });
    print(`Revoked ${hash}.`);
    return;
  }
  throw new UsageError(`unknown keys command ${JSON.stringify(action ?? '')}`);
}

/** Runs one command line; returns the exit code. Output goes through `print`, problems through `printError`. */
export async function runCli(argv: string[], print: Output = console.log, printError: Output = console.error): Promise<number> {
  const [command, ...args] = argv;
  try {
    if (command === undefined || command === 'serve') return await runServeCommand(args);
    if (command === 'init') await runInit(args, print);
    else if (command === 'keys') await runKeys(args, print);
    else if (command === 'usage') await runUsageCommand(args, print, (dataDir, run) => withDatabase(dataDir, run));
    else if (command === 'help' || command === '--help' || command === '-h') print(USAGE);
    else throw new UsageError(`unknown command ${JSON.stringify(command)}`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError || error instanceof UsageCommandError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      printError(`${(error as Error).message}\n\n${USAGE}`);
      return 2;
    }
    if (error instanceof DataDirectoryInUseError) {
      printError(error.message);
      return 1;
    }
    const status = (error as { status?: number }).status;
    printError(status === 404 ? 'Not found: no such account or key.' : (error as Error).message);
    return 1;
  }
}

if (import.meta.main) {
  process.exitCode = await runCli(process.argv.slice(2));
}
