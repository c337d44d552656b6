import express, { type Router } from 'express';
import type { GraphQLSchema } from 'graphql';
import { assetFiles, builtAssets, NOT_BUILT } from '../src/platform/http/built-assets';
import { buildOpenApiDocument } from './openapi';

/** Where Swagger UI and the OpenAPI document are served, below the REST prefix. */
export const DOCS_PATH = '/docs';
export const OPENAPI_PATH = '/openapi.json';

/**
 * Starts Swagger UI on the document. A served file, not an inline script, so a content security
 * policy without 'unsafe-inline' can allow it; the document's URL comes from the page.
 */
const INITIALIZER = `window.addEventListener('load', function () {
  var root = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({
    url: root.getAttribute('data-openapi-url'),
    domNode: root,
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    // The online validator badge would send the document to validator.swagger.io.
    validatorUrl: null,
  });
});
`;

const escapeHtml = (text: string): string =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

/**
 * The page, with every URL under the mount path: no request leaves the origin. Without the
 * built files (`npm run build` copies them from swagger-ui-dist), it says so instead.
 */
function page(base: string, title: string, built: boolean): string {
  const at = escapeHtml(base);
  if (!built) {
    return `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8" /><title>${escapeHtml(title)}</title></head>
  <body><p>${NOT_BUILT('Swagger UI')}</p></body>
</html>
`;
  }
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${escapeHtml(title)}</title>
    <link rel="stylesheet" href="${at}${DOCS_PATH}/assets/swagger-ui.css" />
    <link rel="icon" type="image/png" sizes="32x32" href="${at}${DOCS_PATH}/assets/favicon-32x32.png" />
    <link rel="icon" type="image/png" sizes="16x16" href="${at}${DOCS_PATH}/assets/favicon-16x16.png" />
  </head>
  <body>
    <div id="swagger-ui" data-openapi-url="${at}${OPENAPI_PATH}"></div>
    <script src="${at}${DOCS_PATH}/assets/swagger-ui-bundle.js"></script>
    <script src="${at}${DOCS_PATH}/init.js"></script>
  </body>
</html>
`;
}

/**
 * The REST facade's documentation: `GET /openapi.json` (the OpenAPI document, built once here)
 * and `GET /docs` (Swagger UI, with its assets served from this origin under `/docs/assets`: the
 * files of swagger-ui-dist that `npm run build` copied, scripts/build-assets.cjs).
 */
export function docsRouter(schema: GraphQLSchema): Router {
  const document = buildOpenApiDocument(schema);
  const body = JSON.stringify(document);
  const router = express.Router();
  router.get(OPENAPI_PATH, (_req, res) => {
    res.type('application/json').send(body);
  });
  const assets = builtAssets('swagger-ui');
  router.get(DOCS_PATH, (req, res) => {
    res.type('html').send(page(req.baseUrl, document.info.title, assets !== null));
  });
  router.get(`${DOCS_PATH}/init.js`, (_req, res) => {
    res.type('text/javascript').send(INITIALIZER);
  });
  if (assets) {
    router.use(`${DOCS_PATH}/assets`, assetFiles(assets, { immutable: false }));
  }
  return router;
}
