import { describe, expect, it } from 'vitest';
import { preparedStatementNames } from './prepared-statements.js';

describe('preparedStatementNames', () => {
  it('names each text once, and the same text always the same', () => {
    const nameOf = preparedStatementNames();
    const first = nameOf({ sql: 'SELECT 1' });
    const second = nameOf({ sql: 'SELECT 2' });
    expect(first).not.toBe(second);
    expect(nameOf({ sql: 'SELECT 1' })).toBe(first);
    expect(nameOf({ sql: 'SELECT 2' })).toBe(second);
  });

  it('leaves texts past the bound unnamed, so a connection keeps at most that many statements', () => {
    const nameOf = preparedStatementNames(2);
    const named = [nameOf({ sql: 'a' }), nameOf({ sql: 'b' })];
    expect(named.every((name) => name !== '')).toBe(true);
    expect(nameOf({ sql: 'c' })).toBe('');
    expect(nameOf({ sql: 'a' })).toBe(named[0]);
  });
});
