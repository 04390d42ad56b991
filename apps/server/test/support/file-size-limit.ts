import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/**
 * A full disk, for one process: with its file size limit (RLIMIT_FSIZE, set from outside with
 * util-linux's `prlimit`) at 1 byte, every write that would grow a file past it fails with
 * EFBIG, as writes on a full disk fail with ENOSPC. Only the soft limit changes, so any user may
 * lift it again with `'unlimited'`.
 */
export async function limitFileSize(pid: number, bytes: number | 'unlimited'): Promise<void> {
  await promisify(execFile)('prlimit', [`--pid=${pid}`, `--fsize=${bytes}:`]);
}
