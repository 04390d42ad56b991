/**
 * libsql cuts text at a NUL and PostgreSQL's text cannot hold one, so a name is stored with NUL
 * escaped as `\0` and `\` as `\\`: reversible, so every read returns the name as sent.
 */
const NUL = String.fromCharCode(0);

export function toStoredName(name: string): string {
  return name.replaceAll('\\', '\\\\').replaceAll(NUL, '\\0');
}

export function fromStoredName(stored: string): string {
  // Most names hold no backslash: they are stored as sent, and read without a scan of each.
  if (!stored.includes('\\')) return stored;
  return stored.replace(/\\([\\0])/g, (_, char: string) => (char === '0' ? NUL : '\\'));
}
