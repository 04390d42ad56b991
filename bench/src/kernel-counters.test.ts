import { describe, expect, it } from 'vitest';
import { listenOverflows, tcpExtCounter } from './kernel-counters.js';

const NETSTAT = [
  'TcpExt: SyncookiesSent SyncookiesRecv ListenOverflows ListenDrops',
  'TcpExt: 0 0 4185 4190',
  'IpExt: InNoRoutes InTruncatedPkts',
  'IpExt: 0 0',
].join('\n');

describe('tcpExtCounter', () => {
  it("reads a counter of the kernel's TcpExt line by its name", () => {
    expect(tcpExtCounter(NETSTAT, 'ListenOverflows')).toBe(4185);
    expect(tcpExtCounter(NETSTAT, 'ListenDrops')).toBe(4190);
  });

  it('is undefined for a name the line does not have', () => {
    expect(tcpExtCounter(NETSTAT, 'InNoRoutes')).toBeUndefined();
    expect(tcpExtCounter('', 'ListenOverflows')).toBeUndefined();
  });
});

describe('listenOverflows', () => {
  it("reads this machine's count, which only grows", () => {
    const first = listenOverflows();
    expect(first).toBeGreaterThanOrEqual(0);
    expect(listenOverflows()).toBeGreaterThanOrEqual(first);
  });
});
