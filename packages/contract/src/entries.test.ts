/**
 * What each entry of the package loads. The OpenAPI builder's dependencies stay behind
 * `@animal-store/contract/openapi` and are optional peers, so that they never reach the install
 * of a client's user; whoever builds the document installs them.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';

const SPECIFIER = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]/g;

/** Every module specifier the files reached from `entry` import, types included. */
function specifiersReachedFrom(entry: string): Set<string> {
  const specifiers = new Set<string>();
  const visited = new Set<string>();
  const visit = (url: URL) => {
    if (visited.has(url.href)) return;
    visited.add(url.href);
    for (const [, specifier = ''] of readFileSync(url, 'utf8').matchAll(SPECIFIER)) {
      if (specifier.startsWith('.')) visit(new URL(specifier.replace(/\.js$/, '.ts'), url));
      else specifiers.add(specifier);
    }
  };
  visit(new URL(entry, import.meta.url));
  return specifiers;
}

describe('entries', () => {
  test('the main entry loads none of the OpenAPI builder’s dependencies, not even their types', () => {
    const reached = specifiersReachedFrom('./index.ts');
    expect([...reached].sort()).toEqual(['@ts-rest/core', 'zod']);
  });

  test('the rules’ entry loads no package at all, nor any of Node’s modules: it runs in browsers', () => {
    expect([...specifiersReachedFrom('./rules/index.ts')]).toEqual([]);
  });

  test('the builder’s entry loads them', () => {
    const reached = specifiersReachedFrom('./openapi.ts');
    for (const name of ['@anatine/zod-openapi', '@ts-rest/open-api', 'openapi3-ts']) {
      expect(reached).toContain(name);
    }
  });

  test('what only the builder loads is an optional peer, and nothing is a dependency', () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    const mainEntry = specifiersReachedFrom('./index.ts');
    const builderOnly = [...specifiersReachedFrom('./openapi.ts')].filter(
      (name) => !mainEntry.has(name),
    );
    const optionalPeers = Object.keys(manifest.peerDependenciesMeta ?? {}).filter(
      (name) => manifest.peerDependenciesMeta[name].optional && name in manifest.peerDependencies,
    );
    expect(builderOnly.sort()).toEqual(optionalPeers.sort());
    expect(manifest.dependencies).toBeUndefined();
  });
});
