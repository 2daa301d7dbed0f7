// The view of <entity>.events.ts: the events a save raises, with the payload each carries
// (templates/entity/partials/property.hbs writes its members), and the name a test looks for.
import type { EntityModel, EventModel } from '../../model/types.js';
import { jsonType } from '../schemas.js';
import type { SliceBase } from './base.js';

/** A member of an event payload type: `<name>?: <type>;` (templates/entity/partials/property.hbs). */
export interface Property {
  name: string;
  type: string;
  optional?: boolean;
}

/** The name an event declaration's events carry (as `eventName` in @slicekit/runtime/events). */
export function eventNameOf(model: EntityModel, event: EventModel): string {
  if (event.name) return event.name;
  const pascal = (n: string) => n.charAt(0).toUpperCase() + n.slice(1);
  return event.operation === 'Created'
    ? `${model.name.pascal}Created`
    : `${model.name.pascal}${event.fields.map(pascal).join('')}Updated`;
}

/** The typed payload of each event (what `JSON.parse` of the outbox row gives a subscriber). */
export function eventsView(model: EntityModel, base: SliceBase) {
  const byName = new Map(model.fields.map((f) => [f.name.camel, f]));
  return {
    ...base,
    eventTypes: model.events.map((event) => ({
      name: eventNameOf(model, event),
      doc:
        event.operation === 'Created'
          ? `A ${model.name.words} was created.`
          : `${event.fields.join(', ')} of a ${model.name.words} changed (\`previous\` has the old values).`,
      // Besides the id, which every payload carries.
      members: event.fields
        .filter((name) => name !== 'id')
        .map((name): Property => {
          const f = byName.get(name)!;
          return { name, type: jsonType(f, !f.notNull) };
        }),
      hasPrevious: event.operation === 'Updated',
    })),
  };
}
