/**
 * `@animal-store/contract/openapi.json` as the workspace reads it (its `@animal-store/source`
 * export condition, docs/decisions/008-workspace-reads-sources.md): the document the build writes
 * to `dist/openapi.json`, made here from the sources, so that a package's type check and tests
 * see a contract edit with no build in between. The published package ships only the file.
 */
import { buildOpenApiDocument } from './openapi.js';

export default buildOpenApiDocument();
