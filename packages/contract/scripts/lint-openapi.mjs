// Writes the OpenAPI document of the built package to a temporary file and lints it with
// Redocly CLI, offline: no telemetry, no update check. turbo builds the package first.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument } from '../dist/openapi.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const documentPath = join(mkdtempSync(join(tmpdir(), 'animal-store-openapi-')), 'openapi.json');
writeFileSync(documentPath, `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);

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
