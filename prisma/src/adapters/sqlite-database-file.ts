import { resolve } from 'node:path';

/**
 * The absolute path of the database file a `file:` URL names, or null for an in-memory database.
 * Relative paths resolve against the working directory, as libsql resolves them.
 */
export function sqliteDatabaseFile(url: string): string | null {
  const location = url.slice('file:'.length).split('?')[0] ?? '';
  if (location === '' || location.startsWith(':memory:')) return null;
  // file:///abs/path and file://localhost/abs/path both name /abs/path.
  const path = location.startsWith('//') ? location.slice(location.indexOf('/', 2)) : location;
  return resolve(decodeURIComponent(path));
}
