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

function validatorOf(param: ParamModel): ValidateFunction {
  const schema = requestSchema([param]);
  const key = JSON.stringify(schema);
  let validate = validators.get(key);
  if (!validate) {
    validate = requestAjv().compile(schema);
    validators.set(key, validate);
  }
  return validate;
}

/**
 * Throws `EntitySpecError` naming the field when a value of seed row `i` (plain fields, by
 * property) is one a request setting the field would refuse.
 */
export function checkSeedRow(
  model: EntityModel,
  row: ReadonlyMap<string, unknown>,
  i: number,
): void {
  const problems = model.fields
    .filter((f) => f.role === 'field' && !f.reference && !f.sequence && row.has(f.name.camel))
    .flatMap((f) => {
      const value = row.get(f.name.camel);
      const validate = validatorOf(paramOf(model, f));
      const body = value === null || value === undefined ? {} : { [f.name.camel]: value };
      if (validate(body)) return [];
      const why = (validate.errors ?? []).map((e) => e.message).join(', ');
      return [
        {
          path: `fields.${f.name.camel}`,
          message: `seed row ${i + 1} would hold ${JSON.stringify(value)}, which a request refuses (${why})`,
          fix: `give examples: [...] that keep the field's rules`,
        },
      ];
    });
  if (problems.length) throw new EntitySpecError(`the spec of ${model.name.pascal}`, problems);
}
