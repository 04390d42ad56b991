import { LRUCache } from 'lru-cache';

type CacheOptions<K extends {}, V extends {}> = Omit<
  LRUCache.Options<K, V, unknown>,
  'max' | 'maxSize' | 'sizeCalculation'
>;

/**
 * A least-recently-used cache of at most `most` entries whose memory grows only as it fills.
 *
 * lru-cache's `max` allocates its arrays for `max` entries when the cache is made: the rate
 * limits' 100,000 subjects and the key caches' 60,000 were about 5 MB of heap that every
 * process kept live from its start, and V8 sizes the old generation by what is live. Bounding
 * the summed size instead, every entry of size 1, bounds the count the same way while the
 * library keeps its storage in arrays that grow (its documented `maxSize` mode).
 */
export function boundedCache<K extends {}, V extends {}>(
  most: number,
  options: CacheOptions<K, V> = {},
): LRUCache<K, V> {
  return new LRUCache<K, V>({ ...options, maxSize: most, sizeCalculation: () => 1 });
}
