// The routes a document lists, for tests and start-up checks against the app's real routes.
import type { OpenApiDocument } from './types.js';

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * Every `METHOD /path` the document describes, sorted.
 *
 * @example
 * routesOf(document) // ['DELETE /v1/products/{id}', 'GET /v1/products', ...]
 */
export function routesOf(document: Pick<OpenApiDocument, 'paths'>): string[] {
  const routes: string[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of Object.keys(item)) {
      if (methods.includes(method)) routes.push(`${method.toUpperCase()} ${path}`);
    }
  }
  return routes.sort();
}

/** An OpenAPI path template as an Express route path: `/v1/products/{id}` -> `/v1/products/:id`. */
export function toExpressPath(template: string): string {
  return template.replace(/\{([^}]+)\}/g, ':$1');
}
