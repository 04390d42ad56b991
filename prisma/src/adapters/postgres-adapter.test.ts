import { describe, expect, it } from 'vitest';
import { postgresPoolConfig, postgresSchema } from './postgres-adapter.js';
import { PostgresClient } from './postgres-client.js';

const URL_WITH_SCHEMA =
  'postgresql://animals@db.internal:5433/animals?schema=store&sslmode=disable';

describe('postgresPoolConfig', () => {
  it('gives every call a deadline: connecting, each answer, and each statement on the server', () => {
    const config = postgresPoolConfig(URL_WITH_SCHEMA, {
      poolSize: 7,
      statementTimeoutMs: 1_500,
      connectTimeoutMs: 2_000,
      queryTimeoutMs: 2_500,
    });
    expect(config).toMatchObject({
      max: 7,
      statement_timeout: 1_500,
      connectionTimeoutMillis: 2_000,
      query_timeout: 2_500,
      keepAlive: true,
      allowExitOnIdle: true,
    });
    // Its client reports system types as text, and gives up on a connection after a read timeout.
    expect(config.Client).toBe(PostgresClient);
  });

  it('leaves pg’s defaults where no option is given', () => {
    const config = postgresPoolConfig(URL_WITH_SCHEMA, {});
    for (const setting of [
      'max',
      'statement_timeout',
      'connectionTimeoutMillis',
      'query_timeout',
    ]) {
      expect(config).not.toHaveProperty(setting);
    }
  });

  it('keeps Prisma’s schema parameter from the server, which would refuse it', () => {
    expect(postgresPoolConfig(URL_WITH_SCHEMA, {}).connectionString).toBe(
      'postgresql://animals@db.internal:5433/animals?sslmode=disable',
    );
  });
});

describe('postgresSchema', () => {
  it('is the URL’s schema parameter, `public` without one', () => {
    expect(postgresSchema(URL_WITH_SCHEMA)).toBe('store');
    expect(postgresSchema('postgresql://localhost/animals')).toBe('public');
  });
});
