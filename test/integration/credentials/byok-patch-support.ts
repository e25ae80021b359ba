/**
 * The gateway both `PATCH /byok/{id}` suites run against (one per database driver), and their two helpers:
 * `patch` sends a change, `rejected` sends one that must fail with 400 and checks the stored row did not change.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import type { ByokCredential } from '#src/api-types.ts';
import { startCredentialGateway, type CredentialGateway } from '#test/helpers/credential-gateway.ts';
import type { TestDatabaseDriver } from '#test/helpers/test-database.ts';

/** `count` distinct 64-hex hashes starting with `seed`. */
export const hashes = (count: number, seed = 'a') => Array.from({ length: count }, (_, index) => `${seed}${index.toString(16).padStart(63, '0')}`);

/** `count` distinct strings `<prefix><n>`. */
export const list = (count: number, prefix: string) => Array.from({ length: count }, (_, index) => `${prefix}${index}`);

type PatchAnswer = { data: ByokCredential; error: { code: number; message: string } };

/** Starts a credential gateway on `driver` before the suite's tests and stops it after them; gives the suite's helpers. */
export function useByokPatchSuite(driver: TestDatabaseDriver) {
  let started: CredentialGateway | undefined;
  beforeAll(async () => {
    started = await startCredentialGateway(driver);
  });
  afterAll(async () => {
    await started?.close();
  });
  // Read through once started: the suite destructures it at collection time, before beforeAll runs.
  const context = new Proxy({} as CredentialGateway, {
    get: (_target, name) => {
      if (!started) throw new Error('the credential gateway is read before its beforeAll started it');
      return started[name as keyof CredentialGateway];
    },
  });
  const patch = (id: string, body: unknown, key?: string) =>
    context.call<PatchAnswer>('PATCH', `/byok/${id}`, {
      body,
      ...(key !== undefined ? { key } : {}),
    });

  /** Sends a patch that must fail with 400 and checks the row did not change at all. */
  const rejected = async (id: string, body: unknown, message: string | RegExp = /^Invalid request parameters/) => {
    const before = await context.row(id);
    const response = await patch(id, body);
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(response.body.error.code).toBe(400);
    if (typeof message === 'string') expect(response.body.error.message).toBe(message);
    else expect(response.body.error.message).toMatch(message);
    expect(await context.row(id)).toEqual(before);
  };
  return { context, patch, rejected };
}
