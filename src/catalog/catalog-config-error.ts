/**
 * The start-up failure for a bad configuration file. Its message names the file and, for each problem, the path
 * inside the file and what is wrong, so the operator can fix it without reading code. It never quotes a secret.
 */
import type { ConfigProblem } from './config-readers.ts';
import { redactCredentials } from './credential-shape.ts';

/** The configuration file could not be read, parsed or accepted. */
export class CatalogConfigError extends Error {
  readonly file: string;
  /** The problems as found, for the loader to name the variables a value came from; only the message is shown. */
  readonly problems: readonly ConfigProblem[];

  constructor(file: string, problems: readonly ConfigProblem[], options: { cause?: unknown } = {}) {
    // A secret typed literally into a field that is not a secret one would be quoted by its problem's message.
    const lines = problems.map((problem) => (problem.path ? `  ${redactCredentials(problem.path, { keyHashes: true })}: ${redactCredentials(problem.message)}` : `  ${redactCredentials(problem.message)}`));
    super(`Invalid configuration file ${file}:\n${lines.join('\n')}`, options);
    this.name = 'CatalogConfigError';
    this.file = file;
    this.problems = problems;
  }
}
