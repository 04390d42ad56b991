// Lints the OpenAPI document the package ships, dist/openapi.json, with Redocly CLI, offline:
// no telemetry, no update check. turbo builds the package (and so the file) first.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const documentPath = join(packageDir, 'dist', 'openapi.json');

const require = createRequire(import.meta.url);
const redocly = join(dirname(require.resolve('@redocly/cli/package.json')), 'bin', 'cli.js');
const { status, error } = spawnSync(
  process.execPath,
  [redocly, 'lint', documentPath, '--config', join(packageDir, 'redocly.yaml')],
  {
    stdio: 'inherit',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  },
);
if (error) throw error;
process.exitCode = status ?? 1;
