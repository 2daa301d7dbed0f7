// A generated seed never writes a row its own request schema would refuse: each sampled value of
// a seed row is checked, when the seed is generated, with the ajv schema the app's requests use.
import { requestAjv } from '@slicekit/runtime/fields';
import type { ValidateFunction } from 'ajv';
import { EntitySpecError } from '../../model/errors.js';
import type { EntityModel, FieldModel, ParamModel } from '../../model/types.js';
import { requestSchema } from '../schemas.js';

/** The request parameter that sets `f`: the create's, or one like it for a field set otherwise. */
function paramOf(model: EntityModel, f: FieldModel): ParamModel {
  return (
    model.create.find((p) => p.field === f) ?? {
      ...f,
      required: f.required,
      field: f,
    }
  );
}

const validators = new Map<string, ValidateFunction>();

/** The validator of `schema`, compiled once per process. */
function validatorFor(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = validators.get(key);
  if (!validate) {
    validate = requestAjv().compile(schema);
    validators.set(key, validate);
  }
  return validate;
}

/** Each checked value of a row beside the parameter that sets its field. */
interface Checked {
  field: FieldModel;
  param: ParamModel;
  value: unknown;
}

/** The request body holding the field's `value` (none when the value is absent). */
const bodyOf = ({ field, value }: Checked): Record<string, unknown> =>
  value === null || value === undefined ? {} : { [field.name.camel]: value };

/**
 * Throws `EntitySpecError` naming the field when a value of seed row `i` (plain fields, by
 * property) is one a request setting the field would refuse. The whole row is checked with one
 * schema (one compiled validator per entity, not one per field); only a refused row is checked
 * field by field, for the problems to name each field and its reason.
 */
export function checkSeedRow(
  model: EntityModel,
  row: ReadonlyMap<string, unknown>,
  i: number,
): void {
  const checked = model.fields
    .filter((f) => f.role === 'field' && !f.reference && !f.sequence && row.has(f.name.camel))
    .map((f): Checked => ({ field: f, param: paramOf(model, f), value: row.get(f.name.camel) }));
  // The properties are independent: the row passes exactly when each value passes on its own.
  const whole = validatorFor(requestSchema(checked.map((c) => c.param)));
  if (whole(Object.assign({}, ...checked.map(bodyOf)))) return;
  const problems = checked.flatMap((c) => {
    const validate = validatorFor(requestSchema([c.param]));
    if (validate(bodyOf(c))) return [];
    const why = (validate.errors ?? []).map((e) => e.message).join(', ');
    return [
      {
        path: `fields.${c.field.name.camel}`,
        message: `seed row ${i + 1} would hold ${JSON.stringify(c.value)}, which a request refuses (${why})`,
        fix: `give examples: [...] that keep the field's rules`,
      },
    ];
  });
  if (problems.length) throw new EntitySpecError(`the spec of ${model.name.pascal}`, problems);
}
