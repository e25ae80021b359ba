/**
 * The start-up failure for a bad configuration file. Its message names the file and, for each problem, the path
 * inside the file and what is wrong, so the operator can fix it without reading code. It never quotes a secret.
 */
import type { ConfigProblem } from './config-readers.ts';

/** The configuration file could not be read, parsed or accepted. */
export class CatalogConfigError extends Error {
  readonly file: string;
  readonly problems: readonly ConfigProblem[];

  constructor(file: string, problems: readonly ConfigProblem[], options: { cause?: unknown } = {}) {
    const lines = problems.map((problem) => (problem.path ? `  ${problem.path}: ${problem.message}` : `  ${problem.message}`));
    super(`Invalid configuration file ${file}:\n${lines.join('\n')}`, options);
    this.name = 'CatalogConfigError';
    this.file = file;
    this.problems = problems;
  }
}
