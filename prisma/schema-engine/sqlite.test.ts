import { describe, expect, it } from 'vitest';
import { hasSeveralStatements } from './sqlite.mjs';

describe('hasSeveralStatements', () => {
  it.each([
    'CREATE TABLE a (x INTEGER)',
    'CREATE TABLE a (x INTEGER);',
    'CREATE TABLE a (x INTEGER);\n\n-- a trailing comment; still one\n/* and ; another */  \n',
    "INSERT INTO a VALUES ('x;y')",
    'SELECT "odd;name", [other;name], `third;name` FROM a;',
  ])('one statement: %j', (sql) => {
    expect(hasSeveralStatements(sql)).toBe(false);
  });

  it.each([
    'CREATE TABLE a (x INTEGER); CREATE TABLE b (y INTEGER);',
    'PRAGMA foreign_keys=OFF;\nDROP TABLE "a";',
    'CREATE TABLE a (x INTEGER);\n-- next\nINSERT INTO a VALUES (1);',
    "SELECT 1; 'x'",
    'CREATE TRIGGER t AFTER INSERT ON a BEGIN DELETE FROM b; END;',
  ])('several statements: %j', (sql) => {
    expect(hasSeveralStatements(sql)).toBe(true);
  });
});
