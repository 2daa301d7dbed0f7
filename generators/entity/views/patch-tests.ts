// The slice test's checks of PATCH /{id} (the spec's `patch: true`): which field a test patches
// and with what, which one it clears, and the Updated event the patch raises.
import { ruleFields } from '../../model/rules.js';
import type { EntityModel } from '../../model/types.js';
import { eventNameOf } from './events.js';
import { patchParams } from './patch.js';

/**
 * What the PATCH tests send: `field` set to the second sample's value (every other create field
 * kept), `clear` set to null, and the event a change of `field` raises. Fields in a declared rule
 * are left alone, so a patch never breaks one by chance.
 */
export function patchTestsView(
  model: EntityModel,
  createExpected: Record<string, unknown>,
  second: Record<string, unknown>,
  caseVariant?: { field: string; body: Record<string, unknown> },
) {
  if (!model.patch) return { patchTests: undefined };
  const variant = caseVariant?.field;
  const inRules = new Set(model.rules.flatMap((r) => ruleFields(r).map((f) => f.name.camel)));
  const dto = new Set(model.dto.map((f) => f.name.camel));
  const candidates = patchParams(model).filter(
    (p) =>
      dto.has(p.name.camel) &&
      !inRules.has(p.name.camel) &&
      !p.field?.reference &&
      p.type !== 'date-time' &&
      p.name.camel in createExpected,
  );
  const set = candidates.find((p) => second[p.name.camel] !== createExpected[p.name.camel]);
  const clear = candidates.find((p) => !p.required && p !== set);
  const field = set?.name.camel;
  const event = field
    ? model.events.find((e) => e.operation === 'Updated' && e.fields.includes(field))
    : undefined;
  return {
    patchTests: {
      field,
      body: field ? { [field]: second[field] } : undefined,
      expected: field ? { ...createExpected, [field]: second[field] } : undefined,
      clear: clear?.name.camel,
      clearBody: clear ? { [clear.name.camel]: null } : undefined,
      eventName: event ? eventNameOf(model, event) : undefined,
      // A case-ignoring unique field patched to another row's value in the other case: 409.
      caseVariant:
        variant && patchParams(model).some((p) => p.name.camel === variant)
          ? { field: variant, body: { [variant]: caseVariant!.body[variant] } }
          : undefined,
      testInvalid: model.validate,
      // A field the column requires: null is refused (400), not stored.
      required: patchParams(model).find((p) => p.required)?.name.camel,
    },
  };
}
