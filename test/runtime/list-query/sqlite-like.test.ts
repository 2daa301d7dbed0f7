// SQLite's case-insensitive match for an ASCII pattern: the native LIKE (with slicekit_lower only
// for values holding İ or the Kelvin sign) gives exactly what slicekit_lower on every row gives,
// for the patterns the engine writes (% as the only wildcard), negated too.
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { registerSqliteFunctions } from '@slicekit/runtime/list-query';
import { dialects } from '@slicekit/runtime/internal';

describe('SQLite case-insensitive match of an ASCII pattern', () => {
  it('finds the very rows the Unicode match finds', () => {
    const db = new Database(':memory:');
    registerSqliteFunctions(db);
    db.exec('create table t (x text)');
    const chars = [
      'a',
      'B',
      'k',
      'K',
      '\u212a',
      'i',
      'I',
      '\u0130',
      '\u0131',
      'é',
      'É',
      's',
      'ſ',
      '%',
      '_',
      '!',
      ' ',
      'ß',
      '1',
    ];
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
    const insert = db.prepare('insert into t values (?)');
    for (let i = 0; i < 2000; i++) {
      insert.run(Array.from({ length: 1 + (i % 6) }, () => pick(chars)).join(''));
    }
    insert.run(null);
    const unicode = `slicekit_lower(x) LIKE slicekit_lower(?) ESCAPE '!'`;
    const count = (where: string, bindings: unknown[]) =>
      (db.prepare(`select count(*) n from t where ${where}`).get(...bindings) as { n: number }).n;
    for (let i = 0; i < 300; i++) {
      const text = Array.from({ length: 1 + (i % 3) }, () =>
        pick(['a', 'b', 'k', 'K', 'i', 'I', 's', ' ', '!_']),
      ).join('');
      for (const pattern of [`%${text}%`, `${text}%`, `%${text}`]) {
        const fast = dialects.sqlite.likeCi('x', pattern);
        expect(count(fast.sql, fast.bindings), pattern).to.equal(count(unicode, [pattern]));
        expect(count(`NOT (${fast.sql})`, fast.bindings), pattern).to.equal(
          count(`NOT (${unicode})`, [pattern]),
        );
      }
    }
    db.close();
  });
});
