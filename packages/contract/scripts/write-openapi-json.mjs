// Writes dist/openapi.json, the OpenAPI document the package ships as
// `@animal-store/contract/openapi.json`: the document of the built package, serialized as the
// server serves it at /v1/openapi.json (Express's `res.json`: `JSON.stringify`, no spaces), so
// the file and a server without PUBLIC_URL answer the same bytes. tsup runs it after each build.
import { writeFileSync } from 'node:fs';
import { buildOpenApiDocument } from '../dist/openapi.js';

writeFileSync(
  new URL('../dist/openapi.json', import.meta.url),
  JSON.stringify(buildOpenApiDocument()),
);
