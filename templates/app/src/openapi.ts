// The app's OpenAPI document: served at /openapi.json by src/app.ts, and the source of the typed
// client that `npm run client` writes (scripts/client.ts).
import type { SliceModule } from '@slicekit/runtime/crud';
import {
  buildOpenApiDocument,
  type OpenApiBuildOptions,
  type OpenApiDocument,
} from '@slicekit/runtime/openapi';
import { appName } from './config.js';

/** The document of every slice that describes its routes, titled with the app's name. */
export function openApiDocument(
  slices: readonly SliceModule[],
  auth: OpenApiBuildOptions['auth'],
): OpenApiDocument {
  const documented = slices.flatMap((slice) => (slice.openapi ? [slice.openapi] : []));
  return buildOpenApiDocument(documented, { title: appName, auth });
}
