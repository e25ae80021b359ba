/** Writes configuration files for catalog tests into a fresh temporary directory. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const directory = mkdtempSync(join(tmpdir(), 'switchboard-catalog-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
let counter = 0;

/** Writes `text` to a new file and returns its absolute path. */
export function writeConfig(text: string): string {
  counter += 1;
  const file = join(directory, `config-${counter}.yaml`);
  writeFileSync(file, text);
  return file;
}
