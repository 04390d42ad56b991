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
