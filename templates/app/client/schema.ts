// Written by `npm run client` from the OpenAPI document of this app (scripts/client.ts):
// do not edit; change the slices, then run it again.
export type paths = Record<string, never>;
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    /** @description RFC 9457 problem details: the standard members and a stable code, then the members of the kind of problem (such as errors for crud.invalid_request). */
    ProblemDetails: {
      /**
       * Format: uri
       * @description the kind, urn:slicekit:problem:<name>
       */
      type: string;
      /** @description the status's reason phrase */
      title: string;
      status: number;
      detail: string;
      /** @description the request's path and query */
      instance?: string;
      /** @description the stable code of the kind (crud.not_found) */
      code: string;
    } & {
      [key: string]: unknown;
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
