/**
 * Refuses the NUL character (U+0000) in a management request's body or query. PostgreSQL's text cannot hold
 * it, so a name, a model slug or a filter carrying one failed its write or query as a 500; here it is a 400
 * naming where it is, before anything is read or stored. `/messages` bodies are not walked: their text goes
 * to the model, not into a management table.
 */
import type { RequestHandler } from 'express';
import { BadRequestError } from '#src/errors.ts';

const NUL = '\u0000';
/** What a 400 says of text holding NUL (here, and for the spec's no-NUL pattern in validation-reason.ts). */
export const NUL_COMPLAINT = 'must not contain the NUL character (U+0000)';

interface Found {
  /** JSON pointer, as the validator's details write it: `/body/allowed_models/0`. */
  pointer: string;
  /** As a client writes it: `allowed_models[0]`. */
  name: string;
}

// Depth-first, so the first offender is named; keys are text too (a destination's header names).
function findNul(value: unknown, pointer: string, name: string): Found | null {
  if (typeof value === 'string') return value.includes(NUL) ? { pointer, name } : null;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findNul(item, `${pointer}/${index}`, `${name}[${index}]`);
      if (found) return found;
    }
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  for (const [key, item] of Object.entries(value)) {
    const child = name === '' ? key : `${name}.${key}`;
    if (key.includes(NUL)) return { pointer: `${pointer}/${key}`, name: child };
    const found = findNul(item, `${pointer}/${key}`, child);
    if (found) return found;
  }
  return null;
}

/** Middleware: after the validator, on every operation but the `/messages` ones. */
export const rejectNulCharacters: RequestHandler = (req, res, next) => {
  if (res.locals.messagesErrorShape === true) return next();
  const found = findNul(req.body, '/body', '') ?? findNul(req.query, '/query', '');
  if (found === null) return next();
  const where = found.pointer.startsWith('/query') ? `query parameter ${found.name}` : found.name;
  next(new BadRequestError(`${where} ${NUL_COMPLAINT}`, { details: [{ path: found.pointer, message: NUL_COMPLAINT }] }));
};
