// Partial updates: the body parser of a `PATCH /{id}` route taking a JSON merge patch (RFC 7396).
import express, { type RequestHandler } from 'express';

/** The media type of a JSON merge patch (RFC 7396). */
export const MERGE_PATCH_MEDIA_TYPE = 'application/merge-patch+json';

/** What a generated PATCH route reads: a merge patch, or the same object sent as plain JSON. */
export const PATCH_MEDIA_TYPES: readonly string[] = [MERGE_PATCH_MEDIA_TYPE, 'application/json'];

/**
 * Parses an `application/merge-patch+json` body like `express.json()` parses `application/json`
 * (which the app reads for every route); any other media type is left unparsed, so the route's
 * validation answers 415 naming `PATCH_MEDIA_TYPES`.
 *
 * @example
 * router.patch('/books/:id', mergePatchBody(), sliceRoute(schema, { accepted: PATCH_MEDIA_TYPES }, route));
 */
export function mergePatchBody(): RequestHandler {
  return express.json({ type: MERGE_PATCH_MEDIA_TYPE });
}
