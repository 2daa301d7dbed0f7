// Every slice's events by name: the type of the app's event bus (src/events.ts). Written by
// `npx plop entity` from the events of the slices' entity specs; edit those, not this.

export type AppEvents = Record<never, never>;
