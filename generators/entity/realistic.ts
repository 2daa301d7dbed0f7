// Realistic sample values: what a field of this name, kind and entity would hold (a person's name
// for a Customer's `name`, a product's for a Product's, an email, a small quantity), drawn from
// @faker-js/faker when the files are generated. Each draw is seeded by entity, field, row and
// attempt, so every run writes the same values and one field's draws never shift another's.
import { createHash } from 'node:crypto';
import { faker } from '@faker-js/faker/locale/en';
import type { FieldConstraints, FieldKind } from '@slicekit/runtime/fields';

/** What a draw is for. */
export interface DrawContext {
  /** The entity, PascalCase: `OrderLine`. */
  readonly entity: string;
  /** The property, camelCase: `unitPrice`. */
  readonly name: string;
  readonly kind: FieldKind;
  readonly constraints: FieldConstraints;
  /** The row (0 for the first). */
  readonly row: number;
  /** 0 for the first draw; a retry (a value another row already holds) draws again. */
  readonly attempt: number;
}

// Entities whose `name` is a person's, an organisation's, a good's...
const PEOPLE =
  /customer|person|people|user|employee|author|contact|member|client|staff|student|teacher|patient|guest|driver|owner|buyer|seller|subscriber|attendee|speaker|player|agent|manager|candidate|applicant|passenger|tenant|doctor|friend/;
const ORGANISATIONS =
  /company|supplier|vendor|organi[sz]ation|business|brand|manufacturer|partner|merchant|publisher|agency|carrier|store|shop/;
const GOODS = /product|item|article|goods|merchandise|dish|ingredient|part|component|offer|listing/;
const TASKS = /ticket|task|issue|bug|todo|story|incident|request|job/;
const TAGS = /tag|label|keyword/;
const ORDERS = /order|delivery|shipment|booking|reservation|purchase/;
const CATEGORIES = /category|department|section|genre|group/;

/** A 32-bit seed from a text. */
function seedOf(text: string): number {
  return createHash('sha1').update(text).digest().readUInt32BE(0);
}

const capitalise = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

/** `OrderLine` -> `order line`. */
const wordsOf = (pascal: string) => pascal.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();

/** What a customer writes on an order: one of a few kinds of note, filled in by faker. */
function deliveryNote(at: DrawContext): string {
  const { firstName } = personOf(at);
  return faker.helpers.arrayElement([
    `Gift for ${firstName}, please leave out the receipt.`,
    `Leave the parcel at ${faker.location.streetAddress()}.`,
    `Call ${faker.phone.number({ style: 'international' })} on arrival.`,
    `Deliver after ${faker.number.int({ min: 1, max: 6 })} pm if possible.`,
    `Please wrap the ${faker.commerce.product().toLowerCase()} separately.`,
  ]);
}

/** The person of a row: the same for its name, email and username fields. */
function personOf(at: DrawContext) {
  faker.seed(seedOf(`${at.entity}:person:${at.row}:${at.attempt}`));
  const firstName = faker.person.firstName();
  const lastName = faker.person.lastName();
  return { firstName, lastName, fullName: `${firstName} ${lastName}` };
}

/** The currency of a row: the same for its code and name fields. */
function currencyOf(at: DrawContext) {
  faker.seed(seedOf(`${at.entity}:currency:${at.row}:${at.attempt}`));
  return faker.finance.currency();
}

/** What the `name` (or title, label) of an entity holds. */
function nameOf(entity: string, at: DrawContext): string {
  if (PEOPLE.test(entity)) return personOf(at).fullName;
  if (ORGANISATIONS.test(entity)) return faker.company.name();
  if (GOODS.test(entity)) return faker.commerce.productName();
  if (TAGS.test(entity)) return faker.commerce.productAdjective().toLowerCase();
  if (CATEGORIES.test(entity)) return faker.commerce.department();
  if (/city|town/.test(entity)) return faker.location.city();
  if (/country/.test(entity)) return faker.location.country();
  if (/currency/.test(entity)) return currencyOf(at).name;
  if (/book|novel/.test(entity)) return faker.book.title();
  if (/song|track/.test(entity)) return faker.music.songName();
  if (TASKS.test(entity)) {
    return `${capitalise(faker.hacker.verb())} the ${faker.hacker.adjective()} ${faker.hacker.noun()}`;
  }
  return `${capitalise(faker.word.adjective())} ${entity}`;
}

/** A short code: a currency's, a country's, or letters and digits fitting the length. */
function codeOf(entity: string, at: DrawContext): string {
  const c = at.constraints;
  if (/currency/.test(entity)) return currencyOf(at).code;
  if (/country/.test(entity)) return faker.location.countryCode();
  const length = Math.max(c.minLength ?? 0, Math.min(c.maxLength ?? 8, 8));
  return length <= 4
    ? faker.string.alpha({ length, casing: 'upper' })
    : faker.string.alphanumeric({ length, casing: 'upper' });
}

/** Text fitting the property's name within its entity; undefined when nothing fits better. */
function textOf(n: string, entity: string, at: DrawContext): string | undefined {
  if (/email/.test(n)) {
    const { firstName, lastName } = personOf(at);
    return faker.internet.exampleEmail({ firstName, lastName }).toLowerCase();
  }
  if (/url|website|homepage|link|uri$/.test(n)) {
    return `https://${faker.internet.domainWord()}.example.com/${faker.helpers.slugify(faker.word.noun())}`;
  }
  if (/phone|mobile|fax|tel$/.test(n)) return faker.phone.number({ style: 'international' });
  if (/^(first|given)name$/.test(n)) return personOf(at).firstName;
  if (/^(last|family|sur)name$|^surname$/.test(n)) return personOf(at).lastName;
  if (/username|login|handle|nickname/.test(n)) {
    const { firstName, lastName } = personOf(at);
    return faker.internet.username({ firstName, lastName }).toLowerCase();
  }
  if (
    /(full|display|contact|customer|author|owner)name$|(by|user|author|owner|person|customer|assignee|reviewer|approver|manager|contact)$/.test(
      n,
    )
  ) {
    return personOf(at).fullName;
  }
  if (/company|employer|supplier|vendor|organi[sz]ation|brand|manufacturer/.test(n)) {
    return faker.company.name();
  }
  if (/city|town/.test(n)) return faker.location.city();
  if (/countrycode/.test(n)) return faker.location.countryCode();
  if (/country/.test(n)) return faker.location.country();
  if (/street|address/.test(n)) return faker.location.streetAddress();
  if (/zip|post(al)?code/.test(n)) return faker.location.zipCode();
  if (/^(state|province|region|county)$/.test(n)) return faker.location.state();
  if (/currency/.test(n)) return faker.finance.currencyCode();
  if (/colou?r/.test(n)) return faker.color.human();
  if (/job|occupation|position|role/.test(n)) return faker.person.jobTitle();
  if (/iban/.test(n)) return faker.finance.iban();
  if (/slug/.test(n)) return faker.helpers.slugify(faker.word.words(3)).toLowerCase();
  if (/sku/.test(n)) {
    return `${faker.string.alpha({ length: 2, casing: 'upper' })}-${faker.string.numeric(4)}`;
  }
  if (/code|ref$|reference|serial/.test(n)) return codeOf(entity, at);
  if (/^(name|title|label|heading|caption|subject)$/.test(n)) return nameOf(entity, at);
  if (/name$|title$/.test(n)) return capitalise(faker.word.words(2));
  if (/bio|about/.test(n)) return faker.person.bio();
  if (/description|summary|details|body|content/.test(n)) {
    return GOODS.test(entity) ? faker.commerce.productDescription() : faker.lorem.sentence();
  }
  if (/note|comment|remark|message|instruction/.test(n) && ORDERS.test(entity)) {
    return deliveryNote(at);
  }
  if (/note|comment|remark|message|instruction/.test(n) || at.kind === 'text') {
    return faker.lorem.sentence();
  }
  return undefined;
}

/** The range a number of this name usually lies in, and whether it is money. */
function rangeOf(n: string): { min: number; max: number; money?: boolean } {
  if (/quantity|qty|count|units|pieces|seats|guests|nights|copies/.test(n))
    return { min: 1, max: 10 };
  if (/stock|inventory|onhand|available/.test(n)) return { min: 0, max: 200 };
  if (/age$/.test(n)) return { min: 18, max: 80 };
  if (/year/.test(n)) return { min: 1990, max: 2025 };
  if (/rating|stars|score/.test(n)) return { min: 1, max: 5 };
  if (/percent|discount|rate$|tax|vat/.test(n)) return { min: 0, max: 30 };
  if (/price|cost|amount|total|fee|salary|balance|budget|revenue|value/.test(n)) {
    return { min: 1, max: 500, money: true };
  }
  if (/weight/.test(n)) return { min: 1, max: 40 };
  if (/^lat(itude)?$/.test(n)) return { min: -90, max: 90 };
  if (/^(lng|lon|longitude)$/.test(n)) return { min: -180, max: 180 };
  if (/minutes|seconds|hours|days|duration/.test(n)) return { min: 1, max: 120 };
  if (/position|rank|order|sort|priority|level/.test(n)) return { min: 1, max: 10 };
  return { min: 1, max: 100 };
}

/** A number of this name, inside the usual range and the constraints (undefined: none fits). */
function numberOf(n: string, at: DrawContext, integer: boolean): number | undefined {
  const c = at.constraints;
  const usual = rangeOf(n);
  let min = Math.max(usual.min, c.minimum ?? -Infinity);
  let max = Math.min(usual.max, c.maximum ?? Infinity);
  if (min > max) {
    // The constraints leave the usual range: stay near their bound.
    min = c.minimum ?? (c.maximum ?? 0) - 100;
    max = c.maximum ?? min + 100;
  }
  if (integer) {
    if (Math.ceil(min) > Math.floor(max)) return undefined;
    return faker.number.int({ min: Math.ceil(min), max: Math.floor(max) });
  }
  const fractionDigits = c.scale ?? 2;
  if (usual.money && fractionDigits > 0) {
    return Number(faker.commerce.price({ min, max, dec: Math.min(fractionDigits, 2) }));
  }
  return faker.number.float({ min, max, fractionDigits });
}

// Dates fall within these two years, so seeds look recent but never change with the calendar.
const FROM = '2024-01-01T00:00:00.000Z';
const TO = '2025-12-31T00:00:00.000Z';

/** An instant with whole seconds, as ISO 8601 in UTC. */
const instant = (date: Date) => new Date(Math.floor(date.getTime() / 1000) * 1000).toISOString();

/**
 * A realistic value for the field, row and attempt `at`: undefined when the kind has no better
 * value than its own (ids, references, json).
 */
export function realisticValue(at: DrawContext): unknown {
  const n = at.name.toLowerCase();
  const entity = wordsOf(at.entity);
  faker.seed(seedOf(`${at.entity}:${at.name}:${at.row}:${at.attempt}`));
  faker.setDefaultRefDate(TO);
  switch (at.kind) {
    case 'string':
    case 'text':
      return textOf(n, entity, at) ?? capitalise(faker.word.words(2));
    case 'email':
      return textOf('email', entity, at);
    case 'url':
      return textOf('url', entity, at);
    case 'integer':
      return numberOf(n, at, true);
    case 'decimal':
      return numberOf(n, at, false);
    case 'boolean':
      return faker.datatype.boolean({ probability: /^(is|has)[A-Z]/.test(at.name) ? 0.25 : 0.5 });
    case 'enum':
      return at.constraints.values?.length
        ? faker.helpers.arrayElement(at.constraints.values)
        : undefined;
    case 'date':
      return (
        /birth|dob|born/.test(n)
          ? faker.date.birthdate({ mode: 'age', min: 18, max: 80 })
          : faker.date.between({ from: FROM, to: TO })
      )
        .toISOString()
        .slice(0, 10);
    case 'date-time':
      return instant(faker.date.between({ from: FROM, to: TO }));
    default:
      return undefined;
  }
}
