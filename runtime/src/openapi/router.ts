// `openApiRouter`: serves the document as JSON and a Swagger UI page from swagger-ui-dist (no CDN).
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import express, { type Request, type Response, type Router } from 'express';
import { SlicekitError } from '../errors.js';
import type { OpenApiDocument } from './types.js';

export interface OpenApiRouterOptions {
  /** The document, or a function building it (called once, on the first request). */
  document: OpenApiDocument | (() => OpenApiDocument);
  /** Where the JSON document is served, relative to the router's mount point. @default '/openapi.json' */
  jsonPath?: string;
  /** Where the docs page is served; false serves no page. @default '/docs' */
  docsPath?: string | false;
  /** Title of the docs page. @default the document's `info.title` */
  title?: string;
}

/** The swagger-ui-dist files the page needs; nothing else of the package is reachable. */
const assets: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

function swaggerUiDirectory(): string {
  try {
    return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  } catch (error) {
    throw new SlicekitError(
      'openapi_docs_unavailable',
      'the docs page needs the swagger-ui-dist package: npm install swagger-ui-dist, or pass docsPath: false',
      { cause: error },
    );
  }
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

function page(title: string, base: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${base}/swagger-ui.css">
<link rel="icon" type="image/png" href="${base}/favicon-32x32.png" sizes="32x32">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${base}/swagger-ui-bundle.js"></script>
<script src="${base}/swagger-ui-standalone-preset.js"></script>
<script src="${base}/init.js"></script>
</body>
</html>
`;
}

/**
 * An Express router serving `GET /openapi.json` and a Swagger UI page at `GET /docs`, its assets
 * coming from the swagger-ui-dist package. The page has no inline script, so a strict
 * Content-Security-Policy (`script-src 'self'`) still lets it run.
 *
 * @example
 * app.use(openApiRouter({ document: () => buildOpenApiDocument(slices, { title: 'Shop API' }) }));
 */
export function openApiRouter(options: OpenApiRouterOptions): Router {
  const jsonPath = options.jsonPath ?? '/openapi.json';
  const docsPath = options.docsPath === undefined ? '/docs' : options.docsPath;
  let cached: OpenApiDocument | undefined;
  const document = () =>
    (cached ??= typeof options.document === 'function' ? options.document() : options.document);
  const router = express.Router();

  router.get(jsonPath, function serveOpenApiDocument(_req: Request, res: Response) {
    res.json(document());
  });
  if (docsPath === false) return router;

  const directory = swaggerUiDirectory();
  router.get(docsPath, function serveDocsPage(req: Request, res: Response) {
    const title = options.title ?? document().info.title;
    res.type('html').send(page(title, `${req.baseUrl}${docsPath}`));
  });
  router.get(`${docsPath}/init.js`, function serveDocsInit(req: Request, res: Response) {
    const url = JSON.stringify(`${req.baseUrl}${jsonPath}`);
    res
      .type('text/javascript')
      .send(
        `window.onload = function () {\n` +
          `  window.ui = SwaggerUIBundle({ url: ${url}, dom_id: '#swagger-ui', deepLinking: true,\n` +
          `    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],\n` +
          `    layout: 'StandaloneLayout' });\n};\n`,
      );
  });
  router.get(`${docsPath}/:asset`, function serveDocsAsset(req: Request, res: Response, next) {
    const asset = String(req.params.asset);
    const type = assets[asset];
    if (!type) return next();
    res.type(type);
    res.sendFile(join(directory, asset), { maxAge: '1d' });
  });
  return router;
}
