// Loaded before the server (`node --import ./dist/src/instrument.js dist/src/server.js`): the place
// where tracing starts when it is configured. Nothing is configured here yet, so it does nothing.
export {};
