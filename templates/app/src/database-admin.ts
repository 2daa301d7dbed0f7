// Creating and dropping the database a server URL names: `npm run migrate` creates a new app's
// database when the server has none by that name, and each test run gets a throwaway one.
export {
  createThrowawayDatabase,
  databaseNameOf,
  dropDatabase,
  dropThrowawayDatabase,
  ensureDatabase,
  withDatabaseName,
} from '@slicekit/runtime/database';
