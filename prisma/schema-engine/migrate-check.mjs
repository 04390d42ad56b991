#!/usr/bin/env node
// @ts-check
/**
 * Fails (exit 2) when the migrations of the DATABASE_URL's provider do not produce its schema,
 * like prisma.config.ts choosing `postgresql/` for postgres(ql):// URLs and `sqlite/` otherwise.
 * The diff replays the migrations on a shadow database of that provider.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const url = process.env.DATABASE_URL || 'file:./dev.db';
const provider = /^postgres(ql)?:/.test(url) ? 'postgresql' : 'sqlite';
const launcher = fileURLToPath(new URL('./with-bridge.mjs', import.meta.url));
const { status } = spawnSync(
  process.execPath,
  [
    launcher,
    'migrate',
    'diff',
    '--from-migrations',
    `${provider}/migrations`,
    '--to-schema',
    `${provider}/schema.prisma`,
    '--exit-code',
    ...process.argv.slice(2),
  ],
  { stdio: 'inherit' },
);
process.exitCode = status ?? 1;
