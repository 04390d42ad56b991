import { hash } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { buildOpenApiDocumentFor } from '@animal-store/contract/openapi';
import type { AppRouter } from '@ts-rest/core';
import express, { type RequestHandler } from 'express';
import helmet from 'helmet';
import { inOrder } from '../http/in-order.js';
import { type DocumentEndpoint, siteEndpoint } from '../http/routes.js';

export const OPENAPI_PATH = '/v1/openapi.json';
export const DOCS_PATH = '/docs';
const DOCS_ASSETS_PATH = `${DOCS_PATH}/assets`;
/**
 * The files of Swagger UI the reference page loads, and their source maps (for a browser's
 * developer tools): the only paths under the assets folder, so that any other is unknown (404)
 * whatever its method.
 */
export const DOCS_ASSET_PATHS = [
  'swagger-ui.css',
  'swagger-ui.css.map',
  'swagger-ui-bundle.js',
  'swagger-ui-bundle.js.map',
].map((file) => `${DOCS_ASSETS_PATH}/${file}`);

/** Swagger UI's files, located without loading its megabytes of browser bundle into the server. */
const SWAGGER_UI_FOLDER = dirname(
  createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'),
);

/**
 * No `validatorUrl`: in its standalone layout Swagger UI shows a badge loaded from
 * validator.swagger.io, sent the document's URL, on any host but localhost. This page's layout
 * has none; the option keeps it so if the layout changes.
 */
const DOCS_SCRIPT = `window.ui = SwaggerUIBundle({ url: '${OPENAPI_PATH}', dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null });`;

/** Swagger UI, served from this server (no CDN), reading the document generated from the contract. */
const DOCS_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Animal Store API reference</title>
    <link rel="stylesheet" href="${DOCS_ASSETS_PATH}/swagger-ui.css" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${DOCS_ASSETS_PATH}/swagger-ui-bundle.js"></script>
    <script>${DOCS_SCRIPT}</script>
  </body>
</html>
`;

/**
 * The reference page may run its own assets and its one inline script (by hash), draw Swagger
 * UI's inline styles and data-URI images, and fetch the document; nothing from elsewhere.
 */
const docsPagePolicy = helmet.contentSecurityPolicy({
  useDefaults: false,
  directives: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'", `'sha256-${hash('sha256', DOCS_SCRIPT, 'base64')}'`],
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", 'data:'],
    connectSrc: ["'self'"],
    objectSrc: ["'none'"],
    baseUri: ["'none'"],
    formAction: ["'none'"],
    frameAncestors: ["'none'"],
  },
});

/** Serves Swagger UI's files (those of DOCS_ASSET_PATHS), found by the part of the path after the assets folder. */
function docsAssets(): RequestHandler {
  const serveFile = express.static(SWAGGER_UI_FOLDER, { index: false, redirect: false });
  return (req, res, next) => {
    // As a router mounted at the assets folder would hand it over: the file's path, still
    // encoded, and the whole URL back once the file was not found.
    const url = req.url;
    req.url = url.slice(DOCS_ASSETS_PATH.length);
    serveFile(req, res, (error?: unknown) => {
      req.url = url;
      next(error);
    });
  };
}

/**
 * The OpenAPI document generated from `contract`, and an interactive reference rendered from it.
 */
export function documentEndpoints(
  contract: AppRouter,
  publicUrl: string | undefined,
): DocumentEndpoint[] {
  const document = buildOpenApiDocumentFor(contract, { serverUrl: publicUrl });
  const serveAsset = docsAssets();
  return [
    siteEndpoint('document', OPENAPI_PATH, 'openapi', (_req, res) => {
      res.json(document);
    }),
    siteEndpoint(
      'document',
      DOCS_PATH,
      'docs',
      inOrder(docsPagePolicy, (_req, res) => {
        res.type('html').send(DOCS_PAGE);
      }),
    ),
    ...DOCS_ASSET_PATHS.map((path) => siteEndpoint('document', path, 'docs', serveAsset)),
  ];
}
