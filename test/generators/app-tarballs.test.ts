// An app made by a slicekit installed from its packed tarballs takes both packages from those
// tarballs (through `file:` paths), not from `^<version>` ranges no registry holds.
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appTemplateData, dependencySourceOf } from '../../generators/app/options.js';

describe('an app made from packed tarballs', () => {
  let home: string;
  const root = () => join(home, 'tools/node_modules/slicekit');

  before(() => {
    home = mkdtempSync(join(tmpdir(), 'slicekit-tarballs-'));
    mkdirSync(root(), { recursive: true });
    mkdirSync(join(home, 'packs'));
    writeFileSync(join(home, 'packs/slicekit-0.1.0.tgz'), '');
    writeFileSync(join(home, 'packs/slicekit-runtime-0.1.0.tgz'), '');
    // What npm writes where it installed the two tarballs.
    writeFileSync(
      join(home, 'tools/node_modules/.package-lock.json'),
      JSON.stringify({
        packages: {
          'node_modules/slicekit': { resolved: 'file:../packs/slicekit-0.1.0.tgz' },
          'node_modules/@slicekit/runtime': {
            resolved: 'file:../packs/slicekit-runtime-0.1.0.tgz',
          },
        },
      }),
    );
  });
  after(() => rmSync(home, { recursive: true, force: true }));

  it('depends on the tarballs through file: paths, and says so in its README data', () => {
    const source = dependencySourceOf(root());
    expect(source).to.deep.equal({
      tarballs: {
        slicekit: join(home, 'packs/slicekit-0.1.0.tgz'),
        runtime: join(home, 'packs/slicekit-runtime-0.1.0.tgz'),
      },
    });
    const data = appTemplateData({ name: 'shop' }, join(home, 'apps'), source);
    const range = (list: { name: string; version: string }[], name: string) =>
      list.find((entry) => entry.name === name)?.version;
    expect(range(data.devDependencies, 'slicekit')).to.equal('file:../../packs/slicekit-0.1.0.tgz');
    expect(range(data.dependencies, '@slicekit/runtime')).to.equal(
      'file:../../packs/slicekit-runtime-0.1.0.tgz',
    );
    expect(data.packagesFrom).to.deep.equal({ tarballs: true });
  });

  it('takes the registry when the install does not name tarballs', () => {
    rmSync(join(home, 'tools/node_modules/.package-lock.json'));
    expect(dependencySourceOf(root())).to.equal('registry');
    const data = appTemplateData({ name: 'shop' }, home, 'registry');
    expect(data.packagesFrom).to.deep.equal({
      registry: true,
      version: data.devDependencies.find((d) => d.name === 'slicekit')!.version.slice(1),
    });
  });
});
