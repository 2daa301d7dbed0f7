// The view of <entity>.sequences.ts: one `defineSequence` per numbered field, its options as data.
import type { EntityModel, FieldModel } from '../../model/types.js';
import type { SliceBase } from './base.js';

/** The `defineSequence` options of a numbered field (the migration declares the same). */
export function sequenceOptions(f: FieldModel): Record<string, unknown> {
  const s = f.sequence!;
  return {
    name: s.name,
    valueType: s.valueType,
    ...(f.type === 'string' ? { format: s.format } : {}),
    ...(s.start !== undefined ? { start: s.start } : {}),
    ...(s.max !== undefined ? { max: s.max } : {}),
  };
}

export function sequencesView(model: EntityModel, base: SliceBase) {
  const fields = model.fields.filter((f) => f.sequence);
  return {
    ...base,
    sequenceDefinitions: fields.map((f, i) => ({
      constName: base.numbered[i]!.constName,
      options: sequenceOptions(f),
      doc: `Numbers ${f.name.camel} of each new ${model.name.words}${f.type === 'string' ? ` as ${f.sequence!.format}` : ''}.`,
    })),
  };
}
