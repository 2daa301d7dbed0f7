// `@slicekit/runtime/admin`: the React-Admin data provider of a generated app's admin (/admin).
export * from './data-provider.js';
