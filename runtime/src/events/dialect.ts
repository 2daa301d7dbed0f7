// The events area's public `sqlFamily`, kept for apps that import it from here: the one
// implementation lives in sql/dialect.ts.
export { sqlFamily, UnsupportedDatabaseError, type SqlFamily } from '../sql/dialect.js';
