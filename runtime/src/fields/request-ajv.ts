// The ajv instance request schemas compile on, with the two keywords field kinds' request schemas
// carry. Here, beside the field kinds and apart from the HTTP side of validation (crud/validate.ts),
// so that the generator checks its seed rows without loading Express.
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

let shared: Ajv | undefined;

/**
 * Request-schema keyword: the most digits a number may have after the point (a decimal column's
 * scale). An `x-` name, so OpenAPI documents carry it as an extension.
 */
export const DECIMAL_PLACES = 'x-decimal-places';

/**
 * Request-schema keyword: `true` refuses a string made only of white space (`"   "`); the empty
 * string is left to `minLength`. Generated request schemas give it to every required text.
 */
export const NOT_BLANK = 'x-not-blank';

/** Whether `value` holds something besides white space (the empty string counts as not blank). */
function notBlank(value: string): boolean {
  return value === '' || /\S/u.test(value);
}

/** Digits after the point in the shortest form of `value` (`1e-7` has 7). */
export function decimalPlaces(value: number): number {
  const [mantissa = '', exponent = '0'] = String(value).toLowerCase().split('e');
  const fraction = mantissa.split('.')[1]?.length ?? 0;
  return Math.max(0, fraction - Number(exponent));
}

/** The one ajv instance request schemas compile on: every error reported, formats checked. */
export function requestAjv(): Ajv {
  if (!shared) {
    shared = new Ajv({ allErrors: true, strict: false });
    addFormats(shared);
    // `multipleOf: 0.01` fails on large values (1234567890.12 / 0.01 is not a whole number in
    // binary floating point); counting the digits of the shortest decimal form does not.
    shared.addKeyword({
      keyword: DECIMAL_PLACES,
      type: 'number',
      schemaType: 'number',
      validate: (places: number, value: number) => decimalPlaces(value) <= places,
    });
    shared.addKeyword({
      keyword: NOT_BLANK,
      type: 'string',
      schemaType: 'boolean',
      validate: (on: boolean, value: string) => !on || notBlank(value),
    });
  }
  return shared;
}
