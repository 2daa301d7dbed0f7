// The bottom layer every area builds on: the dialects (one object per database), SQL names,
// stored values read back, and JSON Schema types. It imports no area.
export * from './dialects/index.js';
export * from './json-schema.js';
export * from './names.js';
export * from './values.js';
