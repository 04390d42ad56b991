import { expect, test } from 'vitest';
import { findLink, parseLinkHeader } from './link-header.js';

test('reads targets and rel values, quoted or not, among several links', () => {
  const header =
    '<https://api.example/v1/pets?limit=2&cursor=5.abc>; rel="next", </v1/pets>; rel=successor-version';
  expect(parseLinkHeader(header)).toEqual([
    { target: 'https://api.example/v1/pets?limit=2&cursor=5.abc', rels: ['next'] },
    { target: '/v1/pets', rels: ['successor-version'] },
  ]);
  expect(findLink(header, 'successor-version')).toBe('/v1/pets');
  expect(findLink('<a>; rel="prev next"', 'next')).toBe('a');
  expect(findLink('<a>; title="x"; REL="Next"', 'next')).toBe('a');
});

test('no header, no link', () => {
  expect(findLink(null, 'next')).toBeUndefined();
  expect(findLink('<a>; rel="prev"', 'next')).toBeUndefined();
});
