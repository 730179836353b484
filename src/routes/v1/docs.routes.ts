/**
 * The contract in two forms: GET /openapi.json (the document) and GET /docs (Swagger UI).
 * Swagger UI's scripts and styles come from the swagger-ui-dist package on this server, never a CDN,
 * so the page works offline and under helmet's default Content-Security-Policy as it is.
 */
import path from 'node:path';
import { Router, type Request, type Response } from 'express';
import type { OpenApiDocument } from '../../openapi/types';
import { staticFiles } from '../../middlewares/static-files';

/**
 * The package's folder, found without loading the package: its entry point loads Swagger UI's whole
 * browser bundle, 0.3 s of every start of the server.
 */
const SWAGGER_UI_ASSETS = path.dirname(require.resolve('swagger-ui-dist/package.json'));

/** Where the page's assets are served, below the router's mount point. */
export const DOCS_ASSETS_PATH = '/docs/assets';

/** Swagger UI's start-up, as a script file: the CSP forbids inline scripts. */
const INIT_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: document.querySelector('meta[name="openapi-url"]').getAttribute('content'),
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    tryItOutEnabled: false,
    withCredentials: true,
  });
});
`;

function referencePage(baseUrl: string): string {
  const assets = `${baseUrl}${DOCS_ASSETS_PATH}`;
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <meta name="openapi-url" content="${baseUrl}/openapi.json">
    <title>Blog API reference</title>
    <link rel="stylesheet" href="${assets}/swagger-ui.css">
    <link rel="icon" type="image/png" href="${assets}/favicon-32x32.png" sizes="32x32">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${assets}/swagger-ui-bundle.js"></script>
    <script src="${assets}/docs-init.js"></script>
  </body>
</html>
`;
}

export function docsRoutes(document: OpenApiDocument): Router {
  const router = Router();
  router.get('/openapi.json', (_req: Request, res: Response) => {
    res.json(document);
  });
  router.get('/docs', (req: Request, res: Response) => {
    res.type('html').send(referencePage(req.baseUrl));
  });
  router.use(
    DOCS_ASSETS_PATH,
    (req, res, next) => {
      if (req.path !== '/docs-init.js') return next();
      res.type('application/javascript').send(INIT_SCRIPT);
    },
    ...staticFiles(SWAGGER_UI_ASSETS, { index: false, maxAge: '1h' }),
  );
  return router;
}
