// The admin UI at /admin: the static files `npm run build` writes to dist/admin (admin/build.ts).
// Its pages call the same /v1 API with the caller's token, so every access rule applies as is.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Router } from 'express';
import { problemDetails, sendProblem } from '@slicekit/runtime/http';

/** dist/admin under the app's folder, whether this file runs from src/ or from dist/src/. */
export const adminBuild = fileURLToPath(
  new URL(import.meta.url.endsWith('.ts') ? '../dist/admin/' : '../admin/', import.meta.url),
);

/**
 * Serves the built admin from `dir`; before `npm run build` has written it, /admin answers 404
 * saying so. The page routes by the URL's fragment (`/admin#/products`), so one index.html serves
 * every page.
 */
export function adminRouter(dir: string = adminBuild): Router {
  const router = express.Router();
  // /admin to /admin/, so the page's relative links (./main.js) resolve under /admin.
  router.get('/', function adminFolder(req, res, next) {
    if (req.originalUrl.split('?')[0]!.endsWith('/')) return next();
    res.redirect(301, `${req.baseUrl}/`);
  });
  router.use(express.static(dir, { index: 'index.html', redirect: true, fallthrough: true }));
  router.use(function adminNotBuilt(req, res, next) {
    if (existsSync(join(dir, 'index.html'))) return next();
    sendProblem(
      res,
      problemDetails('http.not_found', {
        detail: 'the admin is not built: run npm run build (or set ADMIN_ENABLED=false)',
        instance: req.originalUrl,
      }),
    );
  });
  return router;
}
