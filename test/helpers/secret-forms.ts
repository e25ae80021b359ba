/**
 * The forms a secret could be written in where it must not be: as it is, percent-encoded, hex, base64 and
 * base64url (alone, or after a prefix as in a Basic header), and any run of twelve of its characters (more
 * than the four its masked label shows). Leak checks look for every one of them.
 */

/** Every form of `secret` a leak check looks for; the base64 ones without their ragged last characters. */
export function secretForms(secret: string): string[] {
  const bytes = Buffer.from(secret);
  const runs: string[] = [];
  for (let start = 0; start + 12 <= secret.length; start += 1) runs.push(secret.slice(start, start + 12));
  const encoded = [
    encodeURIComponent(secret),
    bytes.toString('hex'),
    bytes.toString('base64').slice(0, -4),
    bytes.toString('base64url').slice(0, -4),
    // After `user:` (five bytes) the key starts mid-group: the first eight characters belong to the prefix.
    Buffer.from(`user:${secret}`).toString('base64').slice(8, -4),
  ];
  return [...new Set([secret, ...encoded.filter((form) => form.length >= 12), ...runs])];
}

/** Which forms of which secrets `text` holds, described for a failure message (empty when none). */
export function secretFormsIn(text: string, secrets: readonly string[], where: string): string[] {
  return secrets.flatMap((secret) => secretForms(secret).filter((form) => text.includes(form)).map((form) => `${where} holds ${form}`));
}

/**
 * `value` quoted as a careless service quotes what it was sent: whole, then base64, base64url, hex,
 * percent-encoded and inside a Basic pair (what a leak test's fake backend writes back).
 */
export function quotedInEveryForm(value: string): string {
  const bytes = Buffer.from(value);
  return `${value} (base64 ${bytes.toString('base64')}, base64url ${bytes.toString('base64url')}, hex ${bytes.toString('hex')}, percent ${encodeURIComponent(value)}, basic ${Buffer.from(`user:${value}`).toString('base64')})`;
}
