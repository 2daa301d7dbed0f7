// @slicekit/runtime/auth: bearer-JWT authentication for generated apps (see docs/auth.md).
export * from './errors.js';
export * from './middleware.js';
export * from './options.js';
export * from './user.js';
