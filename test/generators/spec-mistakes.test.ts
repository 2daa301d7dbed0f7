// One run reports every mistake of a spec: its structure, its meaning (defaults, a method's
// precondition, the DTO) and its references to other entities of the app, together.
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodePlop from 'node-plop';
import { registerEntityGenerator } from '../../generators/entity/index.js';
import { EntitySpecError } from '../../generators/model/errors.js';

const AUTHOR = [
  'entity: Author',
  'fields:',
  '  name: { type: string, required: true, maxLength: 100 }',
  '',
].join('\n');
// Six mistakes: a structural one, a default, a precondition, the DTO, an unknown entity and a
// field of another entity's DTO that does not exist.
const BOOK = [
  'entity: Book',
  'fields:',
  '  title: { type: string, required: true, maxLength: 0 }',
  '  status: { type: enum, values: [draft, out], default: lost }',
  '  writer: { type: reference, entity: Writer }',
  '  author: { type: reference, entity: Author, show: [nmae] }',
  'actions:',
  '  - { name: Lend, verb: POST, when: { status: lent } }',
  'dto: { exclude: [price] }',
  '',
].join('\n');

describe('a spec with six mistakes', () => {
  let dir: string;
  const generate = async (answers: Record<string, unknown>) => {
    const plop = await nodePlop(undefined, { destBasePath: join(dir, 'app'), force: false });
    registerEntityGenerator(plop);
    return plop.getGenerator('entity').runActions({ now: '2024-05-01T09:30:00Z', ...answers });
  };
  const failure = (answers: Record<string, unknown>) =>
    generate(answers).then(
      () => expect.fail('the run should have failed'),
      (error: unknown) => {
        expect(error).to.be.instanceOf(EntitySpecError);
        return (error as EntitySpecError).problems.map((p) => p.path);
      },
    );
  const everyMistake = [
    'fields.title.maxLength',
    'fields.status.default',
    'actions[0].when.status',
    'dto.exclude[0]',
    'fields.writer.entity',
    'fields.author.show[0]',
  ];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'slicekit-mistakes-'));
    writeFileSync(join(dir, 'author.yaml'), AUTHOR);
    writeFileSync(join(dir, 'book.yaml'), BOOK);
    expect((await generate({ specFile: join(dir, 'author.yaml') })).failures).to.deep.equal([]);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reports all six in one run', async () => {
    expect(await failure({ specFile: join(dir, 'book.yaml') })).to.have.members(everyMistake);
  });

  it('reports all six, each named by its file, in a run over several specs', async () => {
    const paths = await failure({
      specFile: `${join(dir, 'book.yaml')},${join(dir, 'author.yaml')}`,
    });
    expect(paths).to.have.length(6);
    for (const mistake of everyMistake) {
      expect(
        paths.some((p) => p.endsWith(mistake)),
        mistake,
      ).to.equal(true);
    }
  });
});
