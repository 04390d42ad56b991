/**
 * Statements PostgreSQL prepares once per connection. node-postgres prepares a statement that
 * has a name the first time a connection runs it, and from then on sends only its name and
 * values: the server parses it once, and after five runs plans it once too (a generic plan),
 * where an unnamed statement is parsed and planned on every run. adapter-pg names a statement
 * by what its `statementNameGenerator` gives; an empty name leaves it unnamed.
 *
 * Relies on: a name always meaning the same SQL text (one name per text, never reused), and the
 * server keeping every statement a connection prepared until the connection closes. So that the
 * statements a connection keeps stay bounded, only the first `most` texts seen get a name: the
 * shapes a server runs all day (a page, a pet, a create) come first; texts that differ only in
 * how many values a batch binds (`IN ($1, …, $n)`) may run past the bound and then go unnamed.
 */
import type { SqlQuery } from '@prisma/driver-adapter-utils';

/** The most statement texts named: at most this many prepared per connection. */
export const MOST_PREPARED_STATEMENTS = 250;

/** Names for the statements of one pool, `s0`, `s1`, … in the order their texts are first seen. */
export function preparedStatementNames(
  most = MOST_PREPARED_STATEMENTS,
): (query: Pick<SqlQuery, 'sql'>) => string {
  const names = new Map<string, string>();
  return ({ sql }) => {
    const known = names.get(sql);
    if (known !== undefined) return known;
    if (names.size >= most) return '';
    const name = `s${names.size}`;
    names.set(sql, name);
    return name;
  };
}
