import { describe, expect, it } from 'vitest';
import { createRouteResolver, labelOf } from './routes.js';

const resolve = createRouteResolver();

describe('the route resolver', () => {
  it("finds each operation from the contract's own routes, with its path parameters decoded and its route template", () => {
    expect(resolve('GET', '/v1/pets')).toEqual({
      kind: 'operation',
      name: 'listPets',
      params: {},
      route: '/v1/pets',
    });
    expect(resolve('POST', '/v1/pets')).toEqual({
      kind: 'operation',
      name: 'createPet',
      params: {},
      route: '/v1/pets',
    });
    expect(resolve('GET', '/v1/pets/42')).toEqual({
      kind: 'operation',
      name: 'getPet',
      params: { petId: '42' },
      route: '/v1/pets/{petId}',
    });
  });

  it('hands on a parameter as it came, not percent-decoded, for validation to refuse what is not canonical', () => {
    expect(resolve('GET', '/v1/pets/%34%32')).toMatchObject({
      name: 'getPet',
      params: { petId: '%34%32' },
    });
    expect(resolve('GET', '/v1/pets/%E0')).toMatchObject({ params: { petId: '%E0' } });
  });

  it('answers HEAD as GET, and names the allowed methods of a known path', () => {
    expect(resolve('HEAD', '/v1/pets/7')).toMatchObject({ kind: 'operation', name: 'getPet' });
    expect(resolve('PUT', '/v1/pets')).toEqual({ kind: 'wrong-method', allow: 'GET, HEAD, POST' });
    expect(resolve('DELETE', '/v1/pets/7')).toEqual({ kind: 'wrong-method', allow: 'GET, HEAD' });
  });

  it('tells the probes and documents apart, each with its route template', () => {
    expect(resolve('GET', '/healthz')).toEqual({
      kind: 'probe',
      name: 'healthz',
      route: '/healthz',
    });
    expect(resolve('HEAD', '/readyz')).toEqual({ kind: 'probe', name: 'readyz', route: '/readyz' });
    expect(resolve('GET', '/v1/openapi.json')).toMatchObject({ kind: 'document', name: 'openapi' });
    expect(resolve('GET', '/docs/assets/swagger-ui.css')).toMatchObject({
      kind: 'document',
      name: 'docsAsset',
      route: '/docs/assets/swagger-ui.css',
    });
    // Only the files the page loads are there: any other is unknown, whatever the method.
    expect(resolve('GET', '/docs/assets/index.html')).toEqual({ kind: 'unknown-path' });
    expect(resolve('POST', '/docs/assets/nope.js')).toEqual({ kind: 'unknown-path' });
    expect(resolve('POST', '/docs/assets/swagger-ui.css')).toEqual({
      kind: 'wrong-method',
      allow: 'GET, HEAD',
    });
    expect(resolve('POST', '/healthz')).toEqual({ kind: 'wrong-method', allow: 'GET, HEAD' });
  });

  it('matches paths exactly: no trailing-slash, case or nested aliases', () => {
    for (const path of [
      '/v1/pets/',
      '/V1/Pets',
      '/v1/pets/1/2',
      '/docs/assets/a/b.js',
      '/v1/store/orders',
      '',
    ]) {
      expect(resolve('GET', path), path).toEqual({ kind: 'unknown-path' });
    }
  });

  it('labels each target for the metrics: an operation, a probe, a document, or unmatched', () => {
    expect(labelOf(resolve('GET', '/v1/pets/1'))).toBe('getPet');
    expect(labelOf(resolve('GET', '/readyz'))).toBe('readyz');
    expect(labelOf(resolve('GET', '/docs/assets/swagger-ui-bundle.js'))).toBe('docs');
    expect(labelOf(resolve('GET', '/nowhere'))).toBe('unmatched');
    expect(labelOf({ kind: 'preflight' })).toBe('preflight');
  });
});
