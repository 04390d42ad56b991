import { readFileSync } from 'node:fs';

/**
 * A counter of the kernel's `TcpExt` line in /proc/net/netstat (a header line of names, then a
 * line of values), or undefined if it has none.
 */
export function tcpExtCounter(netstat: string, name: string): number | undefined {
  const [names, values] = netstat
    .split('\n')
    .filter((line) => line.startsWith('TcpExt:'))
    .map((line) => line.trim().split(/\s+/));
  const index = names?.indexOf(name) ?? -1;
  const value = index > 0 ? values?.[index] : undefined;
  return value === undefined ? undefined : Number(value);
}

/**
 * Connection attempts the kernel dropped so far because a listen queue was full
 * (`ListenOverflows`), machine-wide: a level's difference counts the server under load, the one
 * loaded at a time. Zero where /proc/net/netstat cannot be read.
 */
export function listenOverflows(): number {
  try {
    return tcpExtCounter(readFileSync('/proc/net/netstat', 'utf8'), 'ListenOverflows') ?? 0;
  } catch {
    return 0;
  }
}
