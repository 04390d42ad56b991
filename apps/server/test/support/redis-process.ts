import { type ChildProcess, spawn } from 'node:child_process';
import { Redis } from 'ioredis';

/**
 * A Redis of the test's own on `port` (Debian's `redis-server`, keeping nothing on disk), so a
 * test can stop it, or count in it, without touching the Redis other test files share.
 * Resolves once it answers PING.
 */
export async function startRedisServer(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, retryStrategy: () => 100 });
  probe.on('error', () => {});
  try {
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const answered = await probe.ping().then(
        () => true,
        () => false,
      );
      if (answered) return child;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    probe.disconnect();
  }
  child.kill('SIGKILL');
  throw new Error(`redis-server did not answer on port ${port}`);
}
