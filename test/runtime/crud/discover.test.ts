// Slice discovery: every folder's index is imported once, in name order, and a broken slice stops
// start-up with its file named.
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { discoverSlices, SliceDiscoveryError } from '@slicekit/runtime/crud';

const slice = (name: string) =>
  `export default { name: '${name}', dto: { name: 'X', schema: {} }, mount() {} };\n`;

describe('slice discovery', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'slicekit-slices-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function write(folder: string, file: string, text: string): void {
    mkdirSync(join(dir, folder), { recursive: true });
    writeFileSync(join(dir, folder, file), text);
  }

  it('finds every slice folder, sorted, skipping folders without an index or starting with _', async () => {
    write('products', 'index.ts', slice('products'));
    write('orders', 'index.js', slice('orders'));
    write('_shared', 'index.ts', 'throw new Error("never imported");\n');
    write('notes', 'readme.md', 'not a slice');
    const slices = await discoverSlices(pathToFileURL(`${dir}/`));
    expect(slices.map((s) => s.name)).to.deep.equal(['orders', 'products']);
  });

  it('finds nothing in a folder that does not exist', async () => {
    expect(await discoverSlices(join(dir, 'missing'))).to.deep.equal([]);
  });

  it('names the file whose default export is not a slice', async () => {
    write('broken', 'index.ts', 'export default { name: "broken" };\n');
    const error = await discoverSlices(dir).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(SliceDiscoveryError);
    expect((error as SliceDiscoveryError).file).to.equal(join(dir, 'broken', 'index.ts'));
    expect((error as Error).message).to.match(/mount/);
  });
});
