import { describe, expect, it } from 'vitest';
import { boundedCache } from './bounded-cache.js';

describe('boundedCache', () => {
  it('keeps at most its count, forgetting the least recently used first', () => {
    const cache = boundedCache<string, number>(3);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    cache.get('a');
    cache.set('d', 4);

    expect(cache.size).toBe(3);
    expect([...cache.keys()].sort()).toEqual(['a', 'c', 'd']);
  });

  it('takes memory as it fills, not for its bound up front', () => {
    // With lru-cache's `max`, a bound of a million is two arrays of a million slots (16 MB of
    // heap) before any entry: the preallocation this factory exists to avoid.
    const before = process.memoryUsage().heapUsed;
    const cache = boundedCache<string, number>(1_000_000);
    const grown = process.memoryUsage().heapUsed - before;

    expect(grown).toBeLessThan(1_000_000);
    cache.set('only', 1);
    expect(cache.get('only')).toBe(1);
  });
});
