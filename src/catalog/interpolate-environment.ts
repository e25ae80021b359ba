/**
 * `${VAR}` interpolation in the configuration file's string values, after YAML parsing (so a value's characters
 * never change the YAML's structure). `${VAR:-fallback}` uses the fallback when VAR is unset or empty, and
 * `$${` writes a literal `${`. A variable that is unset with no fallback is a problem: an unset key caught at
 * start-up beats a 401 at the first request. Values become strings; keys are not interpolated.
 */
import { childPath, type ConfigProblem } from './config-readers.ts';

const REFERENCE = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$\{[^}]*\}?/g;

/** Replaces the references in one string, reporting each unset or malformed one at `path`. */
export function interpolateString(text: string, environment: NodeJS.ProcessEnv, path: string, problems: ConfigProblem[]): string {
  return text.replace(REFERENCE, (match: string, name: string | undefined, fallback: string | undefined) => {
    if (match === '$${') return '${';
    if (name === undefined) {
      problems.push({ path, message: `has a malformed reference ${JSON.stringify(match)} (write \${NAME} or \${NAME:-default})` });
      return match;
    }
    const value = environment[name];
    if (fallback !== undefined) return value === undefined || value === '' ? fallback : value;
    if (value === undefined) {
      problems.push({ path, message: `refers to the environment variable ${name}, which is not set (write \${${name}:-} to allow it to be empty)` });
      return '';
    }
    return value;
  });
}

/** A copy of a parsed YAML value with every string interpolated. */
export function interpolateEnvironment(value: unknown, environment: NodeJS.ProcessEnv, path: string, problems: ConfigProblem[]): unknown {
  if (typeof value === 'string') return value.includes('$') ? interpolateString(value, environment, path, problems) : value;
  if (Array.isArray(value)) return value.map((item, index) => interpolateEnvironment(item, environment, `${path}[${index}]`, problems));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, interpolateEnvironment(item, environment, childPath(path, key), problems)]),
    );
  }
  return value;
}
