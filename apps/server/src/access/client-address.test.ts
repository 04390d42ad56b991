import ipaddr from 'ipaddr.js';
import { describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../config.js';
import { clientSubject, parseTrustProxy } from './client-address.js';

describe('clientSubject', () => {
  it('counts an IPv4 client by its address, and an IPv4-mapped IPv6 address as the IPv4 address it carries', () => {
    expect(clientSubject('203.0.113.9', 64)).toBe('ip:203.0.113.9');
    expect(clientSubject('::ffff:203.0.113.9', 64)).toBe('ip:203.0.113.9');
    // Never collapsed into one bucket: each mapped address stays its own client.
    expect(clientSubject('::ffff:203.0.113.10', 64)).toBe('ip:203.0.113.10');
  });

  it('gives an IPv4 address the subject ipaddr.js would, whether it is read as it is or parsed', () => {
    const octets = [0, 1, 9, 10, 99, 100, 199, 200, 249, 250, 255];
    for (const a of octets) {
      for (const b of [0, 255]) {
        const address = `${a}.${b}.${octets[(a + b) % octets.length]}.${a}`;
        expect(clientSubject(address, 64)).toBe(`ip:${ipaddr.process(address).toString()}`);
      }
    }
    // Read as it is, not parsed: what Node reports is already canonical.
    const isValid = vi.spyOn(ipaddr, 'isValid');
    clientSubject('203.0.113.9', 64);
    expect(isValid).not.toHaveBeenCalled();
    isValid.mockRestore();
    // Not in canonical form: parsed, and counted as the address ipaddr.js reads it as.
    for (const address of ['010.0.0.1', '1.2.3.256', '0x7f.0.0.1', '1.2.3']) {
      const subject = ipaddr.isValid(address)
        ? `ip:${ipaddr.process(address).toString()}`
        : `ip:${address}`;
      expect(clientSubject(address, 64)).toBe(subject);
    }
  });

  it('counts an IPv6 client by its network prefix, /64 unless told otherwise', () => {
    expect(clientSubject('2001:db8:1:2::1', 64)).toBe('ip:2001:db8:1:2::/64');
    expect(clientSubject('2001:db8:1:2:ffff:ffff:ffff:ffff', 64)).toBe('ip:2001:db8:1:2::/64');
    expect(clientSubject('2001:db8:1:3::1', 64)).toBe('ip:2001:db8:1:3::/64');
    expect(clientSubject('2001:db8:1:3::1', 56)).toBe('ip:2001:db8:1::/56');
  });
});

describe('TRUST_PROXY', () => {
  it('takes a hop count or a list of trusted addresses and CIDR ranges', () => {
    expect(parseTrustProxy('false')).toBe(false);
    expect(parseTrustProxy('1')).toBe(1);
    expect(parseTrustProxy('10.0.0.1, 10.0.0.0/8,::1, fd00::/8')).toEqual([
      '10.0.0.1',
      '10.0.0.0/8',
      '::1',
      'fd00::/8',
    ]);
  });

  it('refuses true, naming the two forms, and a malformed value, naming the problem: the server does not start', () => {
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(
      /TRUST_PROXY: .*number of proxy hops.*CIDR ranges/,
    );
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.1, proxy.example.com' })).toThrow(
      /TRUST_PROXY: "proxy.example.com" is not an address or CIDR range/,
    );
    expect(loadConfig({ TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
  });
});
