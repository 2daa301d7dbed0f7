// The events area's public `sqlFamily`, kept for apps that import it from here: the one
// implementation lives in sql/dialects/.
export { sqlFamily, UnsupportedDatabaseError, type SqlFamily } from '../sql/index.js';
