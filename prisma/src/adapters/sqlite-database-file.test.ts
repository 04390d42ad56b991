import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sqliteDatabaseFile } from './sqlite-database-file.js';

describe('sqliteDatabaseFile', () => {
  it('resolves file: URLs the way libsql opens them', () => {
    expect(sqliteDatabaseFile('file:/data/pets.db')).toBe('/data/pets.db');
    expect(sqliteDatabaseFile('file:///data/pets.db')).toBe('/data/pets.db');
    expect(sqliteDatabaseFile('file://localhost/data/pets.db')).toBe('/data/pets.db');
    expect(sqliteDatabaseFile('file:./dev.db')).toBe(resolve('dev.db'));
    expect(sqliteDatabaseFile('file:dev.db?cache=private')).toBe(resolve('dev.db'));
    expect(sqliteDatabaseFile('file:%F0%9F%90%95.db')).toBe(resolve('🐕.db'));
    expect(sqliteDatabaseFile('file::memory:')).toBeNull();
    expect(sqliteDatabaseFile('file:')).toBeNull();
  });
});
