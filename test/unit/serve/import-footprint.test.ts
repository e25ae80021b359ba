/**
 * What loading the gateway loads, in a fresh Node process (module hooks record every file): none of the AI
 * SDK vendor packages (they load on their family's first use), drizzle-orm only through its CommonJS build,
 * no database driver or Redis client before one is opened, and not Node's bundled undici. Each of these was
 * measured at several to ~90 MB of RSS (bench/JOURNAL.md); a static import slipping back in fails here.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const PROBE = `
import { registerHooks } from 'node:module';
const loaded = [];
registerHooks({ load(url, context, nextLoad) { loaded.push(url); return nextLoad(url, context); } });
await import('#src/server.ts');
await import('#src/cli-serve.ts');
console.log(JSON.stringify({ loaded, builtins: process.moduleLoadList }));
`;

it('loads no vendor SDK, no ES build of drizzle-orm, no driver, no Redis client and no bundled undici', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', PROBE], { cwd: new URL('../../..', import.meta.url).pathname, timeout: 60_000 });
  const { loaded, builtins } = JSON.parse(stdout) as { loaded: string[]; builtins: string[] };
  const packages = (name: string) => loaded.filter((url) => url.includes(`/node_modules/${name}/`));

  expect(loaded.some((url) => url.endsWith('/src/server.ts'))).toBe(true);
  for (const vendor of ['@ai-sdk/openai', '@ai-sdk/openai-compatible', '@ai-sdk/google', '@ai-sdk/azure', '@ai-sdk/amazon-bedrock', 'ai']) {
    expect(packages(vendor), vendor).toEqual([]);
  }
  expect(packages('drizzle-orm').length).toBeGreaterThan(0);
  expect(packages('drizzle-orm').filter((url) => !url.endsWith('.cjs'))).toEqual([]);
  for (const driver of ['@electric-sql/pglite', 'pg', 'ioredis']) expect(packages(driver), driver).toEqual([]);
  expect(builtins.filter((name) => name.includes('deps/undici'))).toEqual([]);
});
