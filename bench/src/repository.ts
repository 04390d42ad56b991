import { fileURLToPath } from 'node:url';
import { runCommand } from './commands.js';

/** The checkout this bench belongs to. */
export const REPOSITORY_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** This package's folder. */
export const BENCH_ROOT = fileURLToPath(new URL('../', import.meta.url));

/** The commit checked out, short, with `+changes` when tracked files differ from it. */
export async function describeRevision(): Promise<string> {
  const cwd = REPOSITORY_ROOT;
  const commit = (await runCommand('git', ['rev-parse', '--short', 'HEAD'], { cwd })).trim();
  const changes = await runCommand('git', ['status', '--porcelain', '--untracked-files=no'], {
    cwd,
  });
  return changes.trim() === '' ? commit : `${commit}+changes`;
}

/** A revision as the report names it: its short commit, however the caller spelled it. */
export async function shortCommitOf(revision: string): Promise<string> {
  const commit = await runCommand('git', ['rev-parse', '--short', `${revision}^{commit}`], {
    cwd: REPOSITORY_ROOT,
  });
  return commit.trim();
}
