import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { boundedStdout, DEFAULT_LOG_BUFFER_BYTES } from './logger.js';

const folder = await mkdtemp(join(tmpdir(), 'animal-store-log-'));
afterAll(() => rm(folder, { recursive: true, force: true }));

/** How many bytes Buffer.byteLength measured while `work` ran. */
function bytesMeasuredDuring(work: () => void): number {
  const byteLength = Buffer.byteLength;
  let measured = 0;
  Buffer.byteLength = ((...args: Parameters<typeof byteLength>) => {
    const bytes = byteLength(...args);
    measured += bytes;
    return bytes;
  }) as typeof byteLength;
  try {
    work();
  } finally {
    Buffer.byteLength = byteLength;
  }
  return measured;
}

it('writes every line byte for byte, and measures none again while lines wait behind a write', async () => {
  const file = join(folder, 'lines.log');
  const output = boundedStdout(DEFAULT_LOG_BUFFER_BYTES, file);
  const line = `{"msg":"Ünïcødé 🐈 \\u0000 ${'x'.repeat(180)}"}\n`;
  const lines = 1_000;

  // All but the first wait behind the first write, which cannot end before this turn does. In
  // text mode each new line re-measured the batch it joined (up to 16 KB): 8 MB for these.
  const measured = bytesMeasuredDuring(() => {
    for (let written = 0; written < lines; written += 1) output.write(line);
  });
  expect(measured).toBeLessThanOrEqual(lines * Buffer.byteLength(line));

  output.end();
  await once(output, 'close');
  expect(await readFile(file, 'utf8')).toBe(line.repeat(lines));
});
