// @slicekit/runtime/auth: bearer-JWT authentication and per-operation roles for generated apps
// (see docs/auth.md and docs/access.md).
export * from './access.js';
export * from './errors.js';
export * from './middleware.js';
export * from './options.js';
export { rolesFromClaims, tenantFromClaims } from './roles.js';
export * from './user.js';
