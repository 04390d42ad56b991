import { join } from 'node:path';
import { runCommand } from './commands.js';

/**
 * Limits far above anything a run sends (a 10-minute soak at 10,000 req/s is 6 million), so
 * rate limiting does all its work on every request yet never refuses one. The key command now
 * takes up to 2^53 - 1, but `--compare` runs the key command of the revision it benches, and
 * before issue 14 that took at most 10 digits into a 32-bit column: 2^31 - 1 at most.
 */
export const BENCH_QUOTA = { perMinute: 2_000_000_000, perDay: 2_000_000_000 } as const;

/** An enterprise key on the server's database, made with the server's own key command. */
export async function createEnterpriseKey(
  serverRoot: string,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  const stdout = await runCommand(
    process.execPath,
    [
      join(serverRoot, 'dist', 'keys.js'),
      'create',
      '--label',
      'bench',
      '--plan',
      'enterprise',
      '--per-minute',
      String(BENCH_QUOTA.perMinute),
      '--per-day',
      String(BENCH_QUOTA.perDay),
      '--json',
    ],
    { cwd: serverRoot, env },
  );
  const { key } = JSON.parse(stdout) as { key?: unknown };
  if (typeof key !== 'string') throw new Error(`the key command printed no key: ${stdout}`);
  return key;
}
