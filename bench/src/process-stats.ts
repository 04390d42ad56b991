import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

/** Clock ticks per second, the unit of utime and stime in /proc/<pid>/stat. */
const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU seconds the process has used so far, in user and kernel mode together. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name may hold spaces and parentheses; the fields after its last ')' do not.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 (utime) and 15 (stime) of stat(5); `fields` starts at field 3.
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** A `Vm…` line of /proc/<pid>/status, in bytes. */
export function statusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kilobytes = new RegExp(`^${field}:\\s*(\\d+) kB`, 'm').exec(status)?.[1];
  if (kilobytes === undefined) throw new Error(`/proc/${pid}/status has no ${field}`);
  return Number(kilobytes) * 1024;
}

export interface PeakRssWatch {
  /** How the peak was found: the kernel's high-water mark, or sampling. */
  readonly method: 'VmHWM' | 'sampled';
  /** The highest RSS since the watch started, in bytes; stops sampling. */
  finish(): number;
}

const SAMPLE_INTERVAL_MS = 100;

/**
 * Watches a process's peak RSS from now on: resets the kernel's high-water mark (writing 5 to
 * clear_refs) and reads VmHWM at the end, or, where that write is not permitted, samples VmRSS
 * every 100 ms (which can miss a peak shorter than that).
 */
export function watchPeakRss(pid: number): PeakRssWatch {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return { method: 'VmHWM', finish: () => statusBytes(pid, 'VmHWM') };
  } catch {
    let peak = statusBytes(pid, 'VmRSS');
    const sampler = setInterval(() => {
      try {
        peak = Math.max(peak, statusBytes(pid, 'VmRSS'));
      } catch {
        // The process ended; the peak so far stands.
      }
    }, SAMPLE_INTERVAL_MS);
    return {
      method: 'sampled',
      finish() {
        clearInterval(sampler);
        try {
          peak = Math.max(peak, statusBytes(pid, 'VmRSS'));
        } catch {
          // As above.
        }
        return peak;
      },
    };
  }
}
