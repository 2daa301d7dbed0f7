// What `npm run pack` would publish, read from the tarballs themselves: the files a user needs and
// no others, every import of published code declared by its manifest, and one version for both
// packages and the apps slicekit generates.
import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { appTemplateData } from '../../generators/app/options.js';
import {
  codeFiles,
  importSites,
  isBuiltin,
  packageOf,
  resolvesInside,
  type ImportSite,
} from './imports.js';
import {
  packPackages,
  packedPackages,
  type PackedManifest,
  type UnpackedPackage,
} from './packed.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Imports that are not declared on purpose, each with its reason. bin/generators.js loads tsx
 * only in a clone of the repository, where plopfile.ts exists; a tarball has no TypeScript source.
 */
const undeclaredOnPurpose: Record<string, Record<string, string[]>> = {
  slicekit: { 'bin/generators.js': ['tsx'] },
};

function filesUnder(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split('\\').join('/'))
    .sort();
}

/** Every file an `exports` or `bin` entry of the manifest points at. */
function manifestTargets(manifest: PackedManifest): string[] {
  const targets = Object.values(manifest.bin ?? {});
  for (const entry of Object.values(manifest.exports ?? {})) {
    if (typeof entry === 'string') targets.push(entry);
    else {
      // `slicekit-source` is this repository's own condition: it names sources that stay here.
      for (const [condition, target] of Object.entries(entry)) {
        if (condition !== 'slicekit-source') targets.push(target);
      }
    }
  }
  return [...new Set(targets.map((target) => target.replace(/^\.\//, '')))];
}

/** Import sites whose package the manifest does not declare (deps, peers, optional deps). */
function undeclaredImports(pkg: UnpackedPackage, sites: ImportSite[]): string[] {
  const { manifest } = pkg;
  const declared = new Set([
    manifest.name,
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
    ...Object.keys(manifest.optionalDependencies ?? {}),
  ]);
  const allowed = undeclaredOnPurpose[manifest.name] ?? {};
  return sites
    .filter(({ specifier }) => !specifier.startsWith('.') && !isBuiltin(specifier))
    .filter(
      ({ file, specifier }) =>
        !declared.has(packageOf(specifier)) &&
        !(allowed[file] ?? []).includes(packageOf(specifier)),
    )
    .map(({ file, specifier }) => `${file} imports ${specifier}`);
}

function describePackage(
  label: string,
  pick: () => UnpackedPackage,
  skip: (file: string) => boolean = () => false,
) {
  describe(`the packed ${label}`, () => {
    let pkg: UnpackedPackage;
    let sites: ImportSite[];
    before(() => {
      pkg = pick();
      sites = importSites(pkg.dir, codeFiles(pkg.files, skip));
    });

    it('holds every file its bin and exports point at', () => {
      const missing = manifestTargets(pkg.manifest).filter((target) => !pkg.files.includes(target));
      expect(missing).to.deep.equal([]);
    });

    it('holds no tests, benchmarks, TypeScript sources, source maps or build configs', () => {
      // dist/templates/ is the generated app's tree, with its own src/, test/ and tsconfig.json.
      const own = pkg.files.filter((file) => !file.startsWith('dist/templates/'));
      const unwanted = own.filter(
        (file) =>
          /(^|\/)(test|tests|bench|src|scripts|node_modules)\//.test(file) ||
          /\.test\.|\.map$|(^|\/)tsconfig[^/]*\.json$/.test(file) ||
          (file.endsWith('.ts') && !file.endsWith('.d.ts')),
      );
      expect(unwanted).to.deep.equal([]);
    });

    it('declares every package its published code imports', () => {
      expect(sites.length).to.be.greaterThan(0);
      expect(undeclaredImports(pkg, sites)).to.deep.equal([]);
    });

    it('reaches a packed file with every relative import', () => {
      const broken = sites
        .filter((site) => site.specifier.startsWith('.') && !resolvesInside(pkg.dir, site))
        .map(({ file, specifier }) => `${file} imports ${specifier}`);
      expect(broken).to.deep.equal([]);
    });
  });
}

describe('published packages', function () {
  // The first use packs both packages: two clean TypeScript builds.
  this.timeout(180_000);
  before(() => packPackages());

  describePackage('@slicekit/runtime', () => packedPackages().runtime);
  // dist/templates/ holds the generated app's own files: the app's package.json declares those.
  describePackage(
    'slicekit',
    () => packedPackages().slicekit,
    (file) => file.startsWith('dist/templates/'),
  );

  it('ships the runtime as compiled JavaScript with a declaration file beside each module', () => {
    const { files } = packedPackages().runtime;
    const others = files.filter((file) => !/^dist\/.*\.(js|d\.ts)$/.test(file));
    expect(others).to.have.members(['package.json', 'README.md']);
    const modules = files.filter((file) => file.endsWith('.js'));
    const withoutTypes = modules.filter((file) => !files.includes(file.replace(/\.js$/, '.d.ts')));
    expect(withoutTypes).to.deep.equal([]);
  });

  it('ships slicekit as its bin, compiled generators, every template and the user docs', () => {
    const { files } = packedPackages().slicekit;
    const top = new Set(files.map((file) => file.split('/')[0]));
    expect([...top].sort()).to.deep.equal(['README.md', 'bin', 'dist', 'docs', 'package.json']);
    expect(files.filter((file) => file.startsWith('bin/'))).to.deep.equal([
      'bin/generators.js',
      'bin/slicekit.js',
    ]);
    const templates = files
      .filter((file) => file.startsWith('dist/templates/'))
      .map((file) => file.slice('dist/'.length));
    // ...and their compiled forms, made when the package is built (scripts/copy-templates.js).
    expect([...templates].sort()).to.deep.equal(
      [...filesUnder('templates'), 'templates/precompiled.cjs'].sort(),
    );
    expect(files).to.include('dist/generators/model/spec-validator.cjs');
    // The docs link to each other, so all of them go; the README links into them.
    expect(files.filter((file) => file.startsWith('docs/'))).to.deep.equal(filesUnder('docs'));
    expect(files).to.include('docs/examples/product.yaml');
  });

  it('gives both packages one version, and slicekit depends on exactly that runtime', () => {
    const { runtime, slicekit } = packedPackages();
    expect(slicekit.manifest.version).to.equal(runtime.manifest.version);
    expect(slicekit.manifest.dependencies?.['@slicekit/runtime']).to.equal(
      runtime.manifest.version,
    );
    expect(slicekit.manifest.engines).to.deep.equal(runtime.manifest.engines);
  });

  it('has apps made by a published slicekit depend on that version from the registry', () => {
    const { version } = packedPackages().slicekit.manifest;
    const data = appTemplateData({ name: 'shop' }, root, 'registry');
    const range = (list: { name: string; version: string }[], name: string) =>
      list.find((entry) => entry.name === name)?.version;
    expect(range(data.dependencies, '@slicekit/runtime')).to.equal(`^${version}`);
    expect(range(data.devDependencies, 'slicekit')).to.equal(`^${version}`);
    const ranges = [...data.dependencies, ...data.devDependencies].map((entry) => entry.version);
    expect(ranges.filter((spec) => spec.startsWith('file:'))).to.deep.equal([]);
  });

  it("picks app versions of the runtime's peer dependencies within the runtime's ranges", () => {
    const { peerDependencies = {} } = packedPackages().runtime.manifest;
    for (const database of ['sqlite', 'postgres', 'mysql'] as const) {
      const data = appTemplateData({ name: 'shop', database }, root, 'registry');
      for (const { name, version } of data.dependencies) {
        const peer = peerDependencies[name];
        if (!peer) continue;
        // Both are caret ranges here: the same major (and minor for 0.x) keeps them compatible.
        const major = (spec: string) => spec.replace(/^[\^~]/, '').split('.')[0];
        expect(major(version), `${name} ${version} against the peer range ${peer}`).to.equal(
          major(peer),
        );
      }
    }
  });
});
