// The subset of JSON Schema slicekit reads and writes: DTO and request schemas of generated slices,
// the schemas field kinds produce, and what the list-query engine reads from a DTO.

/** A JSON Schema (draft 2020-12 keywords; `nullable` as OpenAPI 3.0 spelled it). */
export interface JsonSchema {
  type?: string | readonly string[];
  format?: string;
  enum?: readonly unknown[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  additionalProperties?: boolean | JsonSchema;
  contentEncoding?: string;
  contentMediaType?: string;
  nullable?: boolean;
  anyOf?: readonly JsonSchema[];
  oneOf?: readonly JsonSchema[];
  [keyword: string]: unknown;
}
