import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  IDEMPOTENCY_KEY_LIFETIME_MS,
  idempotentAnswer,
  requestFingerprint,
} from './idempotency.js';

describe('Idempotency-Key', () => {
  it('compares bodies as JSON values: key order and white space aside', () => {
    const first = JSON.parse(
      '{ "name": "Rex", "tags": [{"b": 1, "a": [true, null]}], "categoryId": 1 }',
    );
    const again = JSON.parse('{"categoryId":1,"tags":[{"a":[true,null],"b":1}],"name":"Rex"}');
    expect(requestFingerprint(again)).toBe(requestFingerprint(first));
    expect(canonicalJson(first)).toBe(
      '{"categoryId":1,"name":"Rex","tags":[{"a":[true,null],"b":1}]}',
    );
    expect(requestFingerprint({ name: 'Rex', status: 'available' })).not.toBe(
      requestFingerprint({ name: 'Rex' }),
    );
  });

  it('sorts keys by UTF-16 code units, and keeps `__proto__` a key like any other', () => {
    const body = JSON.parse('{"é": 1, "z": 2, "__proto__": 3, "Z": 4, "\\ud83d\\ude00": 5}');
    expect(canonicalJson(body)).toBe('{"Z":4,"__proto__":3,"z":2,"é":1,"😀":5}');
  });

  it('writes numbers and strings as JSON does', () => {
    const body = JSON.parse('[1e3, -0, 0.1, 1e400, "a\\u0000\\"b", "\\ud800"]');
    expect(canonicalJson(body)).toBe(JSON.stringify(body));
  });

  it('replays the same body and refuses another while the key is remembered, 24 hours inclusive', () => {
    const earlier = { fingerprint: 'a', firstSeenAtMs: 1_000 };
    const lastMs = 1_000 + IDEMPOTENCY_KEY_LIFETIME_MS;
    expect(idempotentAnswer(undefined, 'a', 1_000)).toBe('create');
    expect(idempotentAnswer(earlier, 'a', 1_000)).toBe('replay');
    expect(idempotentAnswer(earlier, 'b', 1_000)).toBe('conflict');
    expect(idempotentAnswer(earlier, 'a', lastMs)).toBe('replay');
    expect(idempotentAnswer(earlier, 'b', lastMs)).toBe('conflict');
    expect(idempotentAnswer(earlier, 'b', lastMs + 1)).toBe('create');
  });
});
