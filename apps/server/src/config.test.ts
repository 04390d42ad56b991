import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';

describe('PUBLIC_URL', () => {
  it('is an origin, kept without a trailing slash', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://api.example.com/' }).PUBLIC_URL).toBe(
      'https://api.example.com',
    );
    expect(loadConfig({ PUBLIC_URL: 'http://api_1:3000' }).PUBLIC_URL).toBe('http://api_1:3000');
  });

  it('refuses anything a URL would be broken by after the origin: the server does not start', () => {
    for (const value of [
      'api.example.com',
      'ftp://api.example.com',
      'https://api.example.com/base',
      'https://api.example.com?x=1',
      'https://api.example.com/#top',
      'https://user:secret@api.example.com',
    ]) {
      expect(() => loadConfig({ PUBLIC_URL: value }), value).toThrow(
        /PUBLIC_URL: must be an origin/,
      );
    }
  });
});

describe('settings', () => {
  it('a variable set to nothing is unset: its default applies, not 0 or an empty name', () => {
    const config = loadConfig({ PORT: '', SHUTDOWN_DRAIN_MS: ' ', HOST: '', METRICS_PORT: '' });
    expect(config.PORT).toBe(3000);
    expect(config.SHUTDOWN_DRAIN_MS).toBe(loadConfig({}).SHUTDOWN_DRAIN_MS);
    expect(config.SHUTDOWN_DRAIN_MS).toBeGreaterThan(0);
    expect(config.HOST).toBe('0.0.0.0');
    expect(config.METRICS_PORT).toBeUndefined();
  });

  it('a database or Redis URL set to nothing stops the server: unset, it would run on another deployment', () => {
    expect(() => loadConfig({ DATABASE_URL: '' })).toThrow(/DATABASE_URL: must start with file:/);
    expect(() => loadConfig({ REDIS_URL: ' ' })).toThrow(/REDIS_URL: must start with redis:/);
    expect(loadConfig({}).REDIS_URL).toBeUndefined();
  });

  it('numbers are whole numbers in decimal digits: other notations stop the server', () => {
    expect(loadConfig({ PORT: '4713', DATABASE_POOL_SIZE: ' 5 ' })).toMatchObject({
      PORT: 4713,
      DATABASE_POOL_SIZE: 5,
    });
    for (const value of ['0x1269', '1e3', '4713.0', '-1', '+4713', '4713abc']) {
      expect(() => loadConfig({ PORT: value }), value).toThrow(
        /PORT: must be a whole number in decimal digits/,
      );
    }
    expect(() => loadConfig({ PORT: '65536' })).toThrow(/PORT/);
    expect(() => loadConfig({ HTTP_REQUEST_TIMEOUT_MS: '5' })).toThrow(/HTTP_REQUEST_TIMEOUT_MS/);
  });
});
