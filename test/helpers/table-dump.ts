/**
 * Every row of every table of a test gateway's database as text, per table: each value as JSON, byte columns
 * as hex and as Latin-1 (so a secret stored raw in a bytea column is found too). Leak checks read it.
 */
import { sql } from '#src/store/drizzle.ts';
import type { TestGateway } from '#test/helpers/start-gateway.ts';

/** The dump of each table, by table name. */
export async function tableDump(gateway: TestGateway): Promise<Map<string, string>> {
  const db = gateway.server.database.db;
  const listed = (await db.execute(sql.raw(`select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`))) as unknown as { rows: { table_name: string }[] };
  const dumps = new Map<string, string>();
  for (const { table_name: table } of listed.rows) {
    const result = (await db.execute(sql.raw(`select * from "${table}"`))) as unknown as { rows: Record<string, unknown>[] };
    let dump = '';
    for (const row of result.rows) {
      for (const value of Object.values(row)) {
        if (value instanceof Uint8Array) dump += `${Buffer.from(value).toString('hex')}\n${Buffer.from(value).toString('latin1')}\n`;
        else dump += `${JSON.stringify(value)}\n`;
      }
    }
    dumps.set(table, dump);
  }
  return dumps;
}
