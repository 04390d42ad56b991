import { readFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';

export interface Machine {
  cpuModel: string;
  cores: number;
  nodeVersion: string;
}

function cpuModel(): string {
  try {
    const model = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1];
    if (model) return model.trim();
  } catch {
    // Not Linux: os.cpus() below still knows.
  }
  return cpus()[0]?.model ?? 'unknown CPU';
}

/** What the numbers were measured on: they only compare with numbers from the same machine. */
export function describeMachine(): Machine {
  return { cpuModel: cpuModel(), cores: availableParallelism(), nodeVersion: process.version };
}
