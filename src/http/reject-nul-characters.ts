/**
 * Refuses text PostgreSQL cannot store in a management request's body or query: the NUL character (U+0000),
 * with which a name, a model slug or a filter failed its write or query as a 500, and a lone UTF-16 surrogate
 * (JSON's `"\ud800"`), which is not Unicode and was stored silently altered to U+FFFD. Here either is a 400
 * naming where it is, before anything is read or stored. `/messages` bodies are not walked: their text goes
 * to the model, not into a management table.
 */
import type { RequestHandler } from 'express';
import { BadRequestError } from '#src/errors.ts';

const NUL = '\u0000';
/** What a 400 says of text holding NUL (here, and for the spec's no-NUL pattern in validation-reason.ts). */
export const NUL_COMPLAINT = 'must not contain the NUL character (U+0000)';
/** What a 400 says of text holding a surrogate code unit without its pair. */
export const LONE_SURROGATE_COMPLAINT = 'must be well-formed Unicode: it holds a lone surrogate (a \\ud800 to \\udfff escape without its pair)';

/** The complaint about text a PostgreSQL text column cannot hold as sent, or null. */
function complaintOf(text: string): string | null {
  if (text.includes(NUL)) return NUL_COMPLAINT;
  return text.isWellFormed() ? null : LONE_SURROGATE_COMPLAINT;
}

interface Found {
  /** JSON pointer, as the validator's details write it: `/body/allowed_models/0`. */
  pointer: string;
  /** As a client writes it: `allowed_models[0]`. */
  name: string;
  complaint: string;
}

// Depth-first, so the first offender is named; keys are text too (a destination's header names).
function findUnstorable(value: unknown, pointer: string, name: string): Found | null {
  if (typeof value === 'string') {
    const complaint = complaintOf(value);
    return complaint === null ? null : { pointer, name, complaint };
  }
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findUnstorable(item, `${pointer}/${index}`, `${name}[${index}]`);
      if (found) return found;
    }
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  for (const [key, item] of Object.entries(value)) {
    const child = name === '' ? key : `${name}.${key}`;
    const complaint = complaintOf(key);
    if (complaint !== null) return { pointer: `${pointer}/${key}`, name: child, complaint };
    const found = findUnstorable(item, `${pointer}/${key}`, child);
    if (found) return found;
  }
  return null;
}

/** Middleware: after the validator, on every operation but the `/messages` ones. */
export const rejectNulCharacters: RequestHandler = (req, res, next) => {
  if (res.locals.messagesErrorShape === true) return next();
  const found = findUnstorable(req.body, '/body', '') ?? findUnstorable(req.query, '/query', '');
  if (found === null) return next();
  const where = found.pointer.startsWith('/query') ? `query parameter ${found.name}` : found.name;
  next(new BadRequestError(`${where} ${found.complaint}`, { details: [{ path: found.pointer, message: found.complaint }] }));
};
