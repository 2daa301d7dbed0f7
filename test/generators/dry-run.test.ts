// `--dry-run` over a folder mixing a new spec with changed ones: nothing in the app changes, and
// the plan names every file the real run then writes (slices, migrations, base copies, the
// events index and the relations files of other slices).
import { expect } from 'chai';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import nodePlop from 'node-plop';
import { registerEntityGenerator } from '../../generators/entity/index.js';

const MEMBER = [
  'entity: Member',
  'fields:',
  '  name: { type: string, required: true, maxLength: 100 }',
  '',
].join('\n');
const LOAN = [
  'entity: Loan',
  'fields:',
  '  member: { type: reference, entity: Member, show: [name] }',
  '  loanedOn: { type: date, required: true }',
  '',
].join('\n');
const LOAN_V2 = LOAN.replace(
  '  loanedOn:',
  '  branch: { type: reference, entity: Branch, show: [city] }\n  note: { type: string, maxLength: 200 }\n  loanedOn:',
);
const BRANCH = [
  'entity: Branch',
  'plural: Branches',
  'fields:',
  '  city: { type: string, required: true, maxLength: 80 }',
  'events:',
  '  - { operation: Created, fields: [id, city] }',
  '',
].join('\n');

async function run(dir: string, answers: Record<string, unknown>) {
  const plop = await nodePlop(undefined, { destBasePath: dir, force: false });
  registerEntityGenerator(plop);
  return plop.getGenerator('entity').runActions(answers);
}

/** Every file under `dir` with its text. */
function snapshot(dir: string): Map<string, string> {
  const walk = (at: string): string[] =>
    readdirSync(at, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(at, e.name)) : [join(at, e.name)],
    );
  return new Map(walk(dir).map((file) => [relative(dir, file), readFileSync(file, 'utf8')]));
}

/** The paths that differ between two snapshots: added, changed or removed. */
function touched(before: Map<string, string>, after: Map<string, string>): string[] {
  const paths = new Set([...before.keys(), ...after.keys()]);
  return [...paths].filter((p) => before.get(p) !== after.get(p)).sort();
}

describe('a dry run over new and changed specs', () => {
  let app: string;
  let specs: string;

  before(async () => {
    app = mkdtempSync(join(tmpdir(), 'slicekit-dry-run-'));
    specs = mkdtempSync(join(tmpdir(), 'slicekit-dry-run-specs-'));
    writeFileSync(join(specs, 'member.yaml'), MEMBER);
    writeFileSync(join(specs, 'loan.yaml'), LOAN);
    const first = await run(app, { specFile: specs, now: '2024-05-01T09:30:00Z' });
    expect(first.failures).to.deep.equal([]);
    writeFileSync(join(specs, 'loan.yaml'), LOAN_V2);
    writeFileSync(join(specs, 'branch.yaml'), BRANCH);
  });
  after(() => {
    rmSync(app, { recursive: true, force: true });
    rmSync(specs, { recursive: true, force: true });
  });

  it('writes nothing, and lists every file the real run then writes', async () => {
    const now = '2025-02-03T04:05:06Z';
    const before = snapshot(app);
    const dry = await run(app, { specFile: specs, now, 'dry-run': true });
    expect(dry.failures).to.deep.equal([]);
    expect(touched(before, snapshot(app))).to.deep.equal([]);
    const plan = dry.changes.map((c) => c.path).join('\n');
    expect(plan).to.contain('New slice Branch');
    expect(plan).to.contain('Upgrade of Loan');

    const real = await run(app, { specFile: specs, now });
    expect(real.failures).to.deep.equal([]);
    const written = touched(before, snapshot(app));
    // The new slice, its migration and base copy, the ALTER of loans, the events index, and the
    // relations files of Loan (a new reference) and of Member (unchanged here, but checked).
    expect(written).to.include.members([
      'src/slices/branches/branch.entity.ts',
      'src/slices/events.ts',
      'src/slices/loans/loan.relations.ts',
      '.slicekit/slices/branches/schema.json',
      '.slicekit/slices/loans/schema.json',
    ]);
    expect(written.filter((p) => p.startsWith('migrations/'))).to.have.length(2);
    for (const path of written) expect(plan, path).to.contain(path);
  });

  it("adds the admin modules an older app lacks, and keeps, naming the export, one of the user's", async () => {
    // An admin from before restore.tsx and row-route.ts, and a restore.tsx of the user's own.
    mkdirSync(join(app, 'admin/src'), { recursive: true });
    writeFileSync(join(app, 'admin/src/main.tsx'), '// My admin.\n');
    const mine = '// My restore button, under another name.\nexport function Undelete() {}\n';
    writeFileSync(join(app, 'admin/src/restore.tsx'), mine);
    const dry = await run(app, { specFile: specs, 'dry-run': true });
    const plan = dry.changes.map((c) => c.path).join('\n');
    expect(plan).to.match(/ add +admin\/src\/row-route\.ts \(the admin pages import it\)/);
    expect(plan).to.match(/ keep +admin\/src\/restore\.tsx \(yours, kept; it has no RestoreButton/);
    expect(existsSync(join(app, 'admin/src/row-route.ts'))).to.equal(false);

    const real = await run(app, { specFile: specs });
    const output = real.changes.map((c) => c.path).join('\n');
    expect(output).to.contain('[KEPT] admin/src/restore.tsx (yours, kept; it has no RestoreButton');
    expect(readFileSync(join(app, 'admin/src/restore.tsx'), 'utf8')).to.equal(mine);
    expect(existsSync(join(app, 'admin/src/row-route.ts'))).to.equal(true);
  });
});
