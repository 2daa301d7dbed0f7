// The view of <entity>.events.ts: the declarations a save raises (the payload types are derived
// from them by EventsOf), a line per event for the doc comment, and the name a test looks for.
import type { EntityModel, EventModel } from '../../model/types.js';
import type { SliceBase } from './base.js';
import { withArticle } from '../../names.js';

/** The name an event declaration's events carry (as `eventName` in @slicekit/runtime/events). */
export function eventNameOf(model: EntityModel, event: EventModel): string {
  if (event.name) return event.name;
  const pascal = (n: string) => n.charAt(0).toUpperCase() + n.slice(1);
  return event.operation === 'Updated'
    ? `${model.name.pascal}${event.fields.map(pascal).join('')}Updated`
    : `${model.name.pascal}${event.operation}`;
}

/** The declarations, and each event's name and payload members for the doc comment. */
export function eventsView(model: EntityModel, base: SliceBase) {
  return {
    ...base,
    eventTypes: model.events.map((event) => ({
      name: eventNameOf(model, event),
      doc:
        event.operation === 'Updated'
          ? `${event.fields.join(', ')} changed.`
          : `${withArticle(model.name.words)} was ${event.operation.toLowerCase()}.`,
      // The id first, which every payload carries.
      members: [
        { name: 'id' },
        ...event.fields.filter((name) => name !== 'id').map((name) => ({ name })),
        ...(event.operation === 'Updated' ? [{ name: 'previous' }] : []),
      ],
    })),
    declarations: model.events.map((e) => ({
      operation: e.operation,
      fields: e.fields,
      ...(e.name ? { name: e.name } : {}),
    })),
  };
}
