import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { buildServer } from './builds.js';
import { onCleanup } from './cleanup.js';
import { buildEnvironment, runCommand } from './commands.js';
import { REPOSITORY_ROOT } from './repository.js';

/**
 * A checkout of `revision` in `folder` (a `git worktree`, removed again at cleanup), installed
 * from its own lockfile and with its server built.
 */
export async function prepareWorktree(revision: string, folder: string): Promise<string> {
  const path = join(folder, 'worktree');
  await runCommand('git', ['worktree', 'add', '--detach', path, revision], {
    cwd: REPOSITORY_ROOT,
  });
  onCleanup(`remove worktree ${path}`, async () => {
    try {
      await runCommand('git', ['worktree', 'remove', '--force', path], { cwd: REPOSITORY_ROOT });
    } catch {
      // A half-made worktree may refuse removal: its folder goes, and git forgets it.
      await rm(path, { recursive: true, force: true });
      await runCommand('git', ['worktree', 'prune'], { cwd: REPOSITORY_ROOT });
    }
  });
  // CI=true: pnpm never stops to ask a question nobody is there to answer.
  await runCommand('pnpm', ['install', '--frozen-lockfile', '--prefer-offline'], {
    cwd: path,
    env: { ...buildEnvironment(), CI: 'true' },
  });
  await buildServer(path);
  return path;
}
