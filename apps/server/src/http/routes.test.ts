import type { RequestHandler } from 'express';
import { describe, expect, it } from 'vitest';
import { createRouteResolver, type Endpoint, labelOf, siteEndpoint } from './routes.js';

const answer: RequestHandler = (_req, res) => res.end();

const endpoint = (method: string, path: string, label: string): Endpoint => ({
  kind: 'operation',
  method,
  path,
  template: path.replace(/:(\w+)/g, '{$1}'),
  label,
  handle: answer,
  route: { method, path, responses: {} } as never,
  takesBody: method === 'POST',
  deprecationHeaders: undefined,
});

const LIST = endpoint('GET', '/v1/pets', 'listPets');
const CREATE = endpoint('POST', '/v1/pets', 'createPet');
const GET = endpoint('GET', '/v1/pets/:petId', 'getPet');
const READY = siteEndpoint('probe', '/readyz', 'readyz', answer);
const ASSET = siteEndpoint('document', '/docs/assets/swagger-ui.css', 'docs', answer);
const resolve = createRouteResolver([LIST, CREATE, GET, READY, ASSET]);

describe('the route resolver', () => {
  it('finds the endpoint of a method and path, with its path parameters as sent', () => {
    expect(resolve('GET', '/v1/pets')).toEqual({ kind: 'operation', endpoint: LIST, params: {} });
    expect(resolve('POST', '/v1/pets')).toEqual({
      kind: 'operation',
      endpoint: CREATE,
      params: {},
    });
    expect(resolve('GET', '/v1/pets/42')).toEqual({
      kind: 'operation',
      endpoint: GET,
      params: { petId: '42' },
    });
    expect(resolve('GET', '/readyz')).toEqual({ kind: 'probe', endpoint: READY, params: {} });
    expect(resolve('GET', '/docs/assets/swagger-ui.css')).toMatchObject({ kind: 'document' });
  });

  it('hands on a parameter as it came, not percent-decoded, for validation to refuse what is not canonical', () => {
    expect(resolve('GET', '/v1/pets/%34%32')).toMatchObject({ params: { petId: '%34%32' } });
    expect(resolve('GET', '/v1/pets/%E0')).toMatchObject({ params: { petId: '%E0' } });
  });

  it("gives a static path's requests one target, made once", () => {
    expect(resolve('GET', '/v1/pets')).toBe(resolve('GET', '/v1/pets'));
  });

  it('answers HEAD as GET, and names the allowed methods of a known path', () => {
    expect(resolve('HEAD', '/v1/pets/7')).toMatchObject({ endpoint: GET });
    expect(resolve('PUT', '/v1/pets')).toEqual({ kind: 'wrong-method', allow: 'GET, HEAD, POST' });
    expect(resolve('DELETE', '/v1/pets/7')).toEqual({ kind: 'wrong-method', allow: 'GET, HEAD' });
    expect(resolve('POST', '/readyz')).toEqual({ kind: 'wrong-method', allow: 'GET, HEAD' });
  });

  it('matches paths exactly: no trailing-slash, case or nested aliases', () => {
    for (const path of ['/v1/pets/', '/V1/Pets', '/v1/pets/1/2', '/docs/assets/a.js', '']) {
      expect(resolve('GET', path), path).toEqual({ kind: 'unknown-path' });
    }
  });

  it('refuses two endpoints on one method and path at start', () => {
    expect(() => createRouteResolver([LIST, endpoint('GET', '/v1/pets', 'again')])).toThrow(
      'Two endpoints answer GET /v1/pets',
    );
  });

  it("labels each target for the metrics: its endpoint's label, a preflight, or unmatched", () => {
    expect(labelOf(resolve('GET', '/v1/pets/1'))).toBe('getPet');
    expect(labelOf(resolve('GET', '/readyz'))).toBe('readyz');
    expect(labelOf(resolve('GET', '/docs/assets/swagger-ui.css'))).toBe('docs');
    expect(labelOf(resolve('GET', '/nowhere'))).toBe('unmatched');
    expect(labelOf({ kind: 'preflight' })).toBe('preflight');
  });
});
