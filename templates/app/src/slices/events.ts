// Every slice's events by name: the type of the app's event bus (src/events.ts). Written by
// `npx plop entity` from the slices' *.events.ts files; edit those, not this.

export type AppEvents = Record<never, never>;
