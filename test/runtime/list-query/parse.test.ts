// parseListQuery: paging, filters, search and ordering from req.query; every malformed input is a
// 400 problem naming the parameter, the field and what is allowed.
import { expect } from 'chai';
import {
  defineListResource,
  FilterOperations,
  ListResourceDefinitionError,
  parseListQuery,
  type ListQuery,
} from '@slicekit/runtime/list-query';
import { ProblemError } from '@slicekit/runtime/http';
import { items } from './fixture.js';

function problem(query: Record<string, unknown>): Record<string, unknown> {
  try {
    parseListQuery(items, query);
  } catch (error) {
    expect(error).to.be.instanceOf(ProblemError);
    const p = (error as ProblemError).toProblem();
    expect(p.status).to.equal(400);
    expect(p.detail).to.be.a('string').with.length.above(0);
    return p;
  }
  throw new Error(`expected a 400 for ${JSON.stringify(query)}`);
}

const parse = (query: Record<string, unknown>): ListQuery => parseListQuery(items, query);

describe('list query parsing', () => {
  describe('paging', () => {
    it('defaults to page 1 of 20', () => {
      expect(parse({})).to.include({ pageNumber: 1, pageSize: 20, desc: false });
    });
    it('clamps a page number below 1 to 1 and a page size above 100 to 100', () => {
      expect(parse({ pageNumber: '-4', pageSize: '5000' })).to.include({
        pageNumber: 1,
        pageSize: 100,
      });
    });
    it('turns a page size below 1 into the default 20', () => {
      expect(parse({ pageSize: '0' }).pageSize).to.equal(20);
      expect(parse({ pageSize: '-3' }).pageSize).to.equal(20);
    });
    it('honours a smaller configured maximum', () => {
      const small = defineListResource({
        table: 't',
        dto: { type: 'object', properties: { id: { type: 'integer' } } },
        maxPageSize: 10,
      });
      expect(parseListQuery(small, {}).pageSize).to.equal(10);
      expect(parseListQuery(small, { pageSize: '50' }).pageSize).to.equal(10);
    });
    it('answers 400 to a page number that is not a whole number', () => {
      expect(problem({ pageNumber: 'two' })).to.include({ parameter: 'pageNumber' });
      expect(problem({ pageSize: '2.5' })).to.include({ parameter: 'pageSize' });
    });
    it('clamps absurdly large page numbers instead of overflowing the offset', () => {
      expect(parse({ pageNumber: '99999999999999999999999' }).pageNumber).to.equal(1_000_000_000);
    });
  });

  describe('parameters', () => {
    it('answers 400 to an unknown parameter, naming the accepted ones', () => {
      const p = problem({ sort: 'name' });
      expect(p).to.include({ parameter: 'sort' });
      expect(p.allowed).to.include('orderBy');
    });
    it('accepts a parameter the route declares it handles itself', () => {
      expect(() =>
        parseListQuery(items, { view: 'compact' }, { allowParameters: ['view'] }),
      ).not.to.throw();
    });
    it('matches parameter names case-insensitively', () => {
      expect(parse({ PageSize: '5', ORDERBY: 'name' })).to.include({
        pageSize: 5,
        orderBy: 'name',
      });
    });
    it('answers 400 when a single-valued parameter is repeated', () => {
      expect(problem({ pageSize: ['5', '6'] })).to.include({ parameter: 'pageSize' });
    });
    it('answers 400 to a nested structure from an extended query parser', () => {
      expect(problem({ filter: { name: 'x' } })).to.include({ parameter: 'filter' });
    });
  });

  describe('filters', () => {
    it('resolves camelCase, PascalCase, snake_case and kebab-case to one property', () => {
      for (const name of ['createdOn', 'CreatedOn', 'created_on', 'created-on', 'CREATEDON']) {
        expect(parse({ filter: `${name}:IsNull` }).filters[0]).to.deep.equal({
          field: 'createdOn',
          operation: 'IsNull',
        });
      }
    });
    it('splits on the first two colons only, so timestamps keep theirs', () => {
      const [f] = parse({ filter: 'createdOn:GreaterThan:2024-05-01T10:30:00Z' }).filters;
      expect((f!.value as Date).toISOString()).to.equal('2024-05-01T10:30:00.000Z');
      expect(parse({ filter: 'name:Equal:a:b:c' }).filters[0]!.value).to.equal('a:b:c');
    });
    it('matches operation names case-insensitively', () => {
      expect(parse({ filter: 'name:startswith:ab' }).filters[0]!.operation).to.equal('StartsWith');
    });
    it('knows all fourteen operations in any case', () => {
      expect(FilterOperations).to.have.length(14);
      for (const operation of FilterOperations) {
        const value = operation === 'IsNull' || operation === 'IsNotNull' ? '' : ':ab';
        for (const spelling of [operation, operation.toLowerCase(), operation.toUpperCase()]) {
          expect(parse({ filter: `name:${spelling}${value}` }).filters[0]!.operation).to.equal(
            operation,
          );
        }
      }
    });
    it('coerces values to each DTO type', () => {
      const value = (filter: string) => parse({ filter }).filters[0]!.value;
      expect(value('quantity:Equal:+42')).to.equal(42);
      expect(value('quantity:Equal:-7')).to.equal(-7);
      expect(value('price:Equal:19.99')).to.equal(19.99);
      expect(value('price:Equal:.5')).to.equal(0.5);
      expect(value('isActive:Equal:FALSE')).to.equal(false);
      expect(value('isActive:Equal:1')).to.equal(true);
      expect(value('id:Equal:3F2504E04F8911D39A0C0305E82C3301')).to.equal(
        '3f2504e0-4f89-11d3-9a0c-0305e82c3301',
      );
      expect(
        (value('createdOn:Equal:2024-05-01T10:00:00.1234-03:00') as Date).toISOString(),
      ).to.equal('2024-05-01T13:00:00.123Z');
      expect(value('releaseDate:Equal:2024-02-29')).to.equal('2024-02-29');
      expect(value('status:Equal:Draft')).to.equal('draft');
      expect(value('name:Equal: spaced ')).to.equal(' spaced ');
    });
    it('reads a space before an offset as the "+" a client forgot to encode', () => {
      const [f] = parse({ filter: 'createdOn:Equal:2024-05-01T12:00:00 02:00' }).filters;
      expect((f!.value as Date).toISOString()).to.equal('2024-05-01T10:00:00.000Z');
    });
    it('treats a date-only value on a date-time field as the whole UTC day', () => {
      const [f] = parse({ filter: 'createdOn:Equal:2024-05-01' }).filters;
      expect(f!.value).to.deep.include({ kind: 'day', day: '2024-05-01' });
    });
    it('coerces every element of an In list', () => {
      expect(parse({ filter: 'quantity:In:1, 2,3' }).filters[0]!.value).to.deep.equal([1, 2, 3]);
      const p = problem({ filter: 'quantity:In:1,x,3' });
      expect(p).to.include({ parameter: 'filter', field: 'quantity' });
    });
    it('coerces enum values case-insensitively to the declared spelling', () => {
      expect(parse({ filter: 'status:Equal:ACTIVE' }).filters[0]!.value).to.equal('active');
      expect(problem({ filter: 'status:Equal:gone' }).detail).to.match(
        /expected one of draft, active, archived$/,
      );
      expect(problem({ filter: 'status:Equal:gone' }).allowed).to.deep.equal([
        'draft',
        'active',
        'archived',
      ]);
    });
    it('normalises UUIDs, braces and all', () => {
      expect(
        parse({ filter: 'id:Equal:{3F2504E0-4F89-11D3-9A0C-0305E82C3301}' }).filters[0]!.value,
      ).to.equal('3f2504e0-4f89-11d3-9a0c-0305e82c3301');
    });
    it('answers 400 to values that cannot be coerced, naming the field and the form', () => {
      for (const filter of [
        'price:Equal:cheap',
        'quantity:Equal:1.5',
        'isActive:Equal:yes',
        'id:Equal:42',
        'createdOn:Equal:yesterday',
        'createdOn:Equal:2024-02-30',
        'releaseDate:Equal:2024-05-01T00:00:00Z',
      ]) {
        const p = problem({ filter });
        expect(p.parameter).to.equal('filter');
        expect(p.field).to.be.a('string');
        expect(p.allowed).to.not.equal(undefined);
      }
    });
    it('answers 400 to a field the DTO does not have, listing the fields', () => {
      const p = problem({ filter: 'ownedBy:Equal:x' });
      expect(p).to.include({ parameter: 'filter', field: 'ownedBy' });
      expect(p.allowed).to.include('name');
    });
    it('refuses computed, nested and collection members rather than failing in SQL', () => {
      expect(problem({ filter: 'secret:Equal:x' }).detail).to.match(/computed/);
      expect(problem({ filter: 'meta:IsNull' }).detail).to.match(/nested object/);
      expect(problem({ filter: 'tags:IsNull' }).detail).to.match(/collection/);
    });
    it('answers 400 to text operations on non-text fields', () => {
      expect(problem({ filter: 'price:Contains:1' })).to.include({ field: 'price' });
    });
    it('accepts IsNull in the two-part form and refuses it with a value', () => {
      expect(parse({ filter: 'code:IsNull' }).filters).to.have.length(1);
      expect(problem({ filter: 'code:IsNull:yes' })).to.include({ field: 'code' });
    });
    it('answers 400 to an operation without its value and to an unknown operation', () => {
      expect(problem({ filter: 'name:Equal' })).to.include({ field: 'name' });
      expect(problem({ filter: 'name:Like:x' }).allowed).to.include('Contains');
      expect(problem({ filter: 'name' })).to.include({ parameter: 'filter' });
    });
    it('takes 20 filters and answers 400 to 21', () => {
      expect(parse({ filter: Array(20).fill('code:IsNull') }).filters).to.have.length(20);
      expect(problem({ filter: Array(21).fill('code:IsNull') })).to.include({
        parameter: 'filter',
      });
    });
  });

  describe('OR groups', () => {
    it('reads or(...) as a group ANDed with the other filters, nested and case-insensitive', () => {
      const query = parse({
        filter: [
          'price:LessThan:50',
          'OR( name:Equal:apple | and(status:Equal:draft|code:IsNull))',
        ],
      });
      expect(query.filters).to.deep.equal([{ field: 'price', operation: 'LessThan', value: 50 }]);
      expect(query.groups).to.deep.equal([
        {
          combine: 'or',
          members: [
            { field: 'name', operation: 'Equal', value: 'apple ' },
            {
              combine: 'and',
              members: [
                { field: 'status', operation: 'Equal', value: 'draft' },
                { field: 'code', operation: 'IsNull' },
              ],
            },
          ],
        },
      ]);
    });
    it('makes the character after a backslash literal inside a group, and only there', () => {
      const group = parse({ filter: 'or(name:Equal:a\\|b\\)c\\(d\\\\e|code:Contains:x:y)' })
        .groups![0]!;
      expect(group.members).to.deep.equal([
        { field: 'name', operation: 'Equal', value: 'a|b)c(d\\e' },
        { field: 'code', operation: 'Contains', value: 'x:y' },
      ]);
      expect(parse({ filter: 'name:Equal:a\\|b' }).filters[0]!.value).to.equal('a\\|b');
    });
    it('answers 400 to a malformed group, naming the filter', () => {
      for (const filter of [
        'or(name:Equal:a',
        'or(name:Equal:a|)',
        'or()',
        'or(name:Equal:a)x',
        'or(name:Equal:a\\',
        'or(name:Equal:(a)',
        'or(name:Equal:a))',
        'and (name:Equal:a|(code:IsNull))',
      ]) {
        expect(problem({ filter }), filter).to.include({
          code: 'list_query.invalid',
          parameter: 'filter',
        });
      }
    });
    it('answers 400 to an unknown field or operation inside a group, as outside', () => {
      expect(problem({ filter: 'or(name:Equal:a|ownedBy:Equal:b)' })).to.include({
        parameter: 'filter',
        field: 'ownedBy',
      });
      expect(problem({ filter: 'or(name:Equal:a|price:Like:1)' })).to.include({ field: 'price' });
      expect(problem({ filter: 'or(name:Equal:a|price:GreaterThan:cheap)' })).to.include({
        field: 'price',
      });
    });
    it('bounds the depth, the number of groups and the conditions in all', () => {
      expect(parse({ filter: 'or(and(or(name:Equal:a|code:IsNull)|code:IsNull)|code:IsNull)' }))
        .to.have.property('groups')
        .with.length(1);
      expect(problem({ filter: 'or(and(or(and(name:Equal:a))))' }).reason).to.match(/4 deep/);
      const eleven = Array.from({ length: 11 }, () => 'or(code:IsNull)');
      expect(problem({ filter: eleven }).reason).to.match(/more than 10 groups/);
      const many = `or(${Array.from({ length: 15 }, () => 'code:IsNull').join('|')})`;
      expect(problem({ filter: [many, ...Array.from({ length: 6 }, () => 'code:IsNull')] }))
        .to.have.property('reason')
        .that.matches(/more than 20 conditions/);
    });
  });

  describe('select', () => {
    it('reads members and relation paths in canonical spelling', () => {
      expect(parse({ select: ' ID, name ,Category.TITLE,tags' }).select).to.deep.equal([
        'id',
        'name',
        'category.title',
        'tags',
      ]);
      expect(parse({ select: 'category.title,category' }).select).to.deep.equal(['category']);
      expect(parse({ select: ' ' }).select).to.equal(undefined);
    });
    it('leaves select to a route that declares it handles it itself', () => {
      const query = parseListQuery(items, { select: 'csv' }, { allowParameters: ['Select'] });
      expect(query.select).to.equal(undefined);
    });
    it('answers 400 to an unknown member, path or an empty name, listing what can be selected', () => {
      for (const select of ['nope', 'id,,name', 'category.nope', 'name.first', 'category.id.x']) {
        const p = problem({ select });
        expect(p, select).to.include({ code: 'list_query.invalid', parameter: 'select' });
        expect(p.allowed).to.include('category.title');
      }
    });
    it('reads paths into JSON objects and arrays of objects, and names why a JSON value has none', () => {
      expect(parse({ select: 'META.Label,parts.sku,meta.weight' }).select).to.deep.equal([
        'meta.label',
        'parts.sku',
        'meta.weight',
      ]);
      expect(problem({ select: 'attributes.colour' }).detail).to.include(
        'attributes is a JSON dictionary, whose keys are not fixed, so it has no members to select',
      );
      expect(problem({ select: 'labels.x' }).detail).to.include(
        'labels is a JSON array of values, not of objects',
      );
      expect(problem({ select: 'tags.value' }).detail).to.include('tags is a collection of values');
      expect(problem({ select: 'meta.nope' }).detail).to.include(
        "names no member of meta's objects",
      );
      expect(problem({ select: 'meta.nope' }).allowed).to.include.members([
        'meta.label',
        'parts.sku',
      ]);
    });
  });

  describe('search and ordering', () => {
    it('treats a blank search as none and answers 400 below 2 characters', () => {
      expect(parse({ search: '   ' }).search).to.equal(undefined);
      expect(problem({ search: 'a' })).to.include({ parameter: 'search' });
      expect(parse({ search: ' ab ' }).search).to.equal('ab');
    });
    it('resolves orderBy like a filter field and answers 400 to an unknown or unmapped one', () => {
      expect(parse({ orderBy: 'is_active', desc: 'true' })).to.include({
        orderBy: 'isActive',
        desc: true,
      });
      expect(problem({ orderBy: 'ownedBy' })).to.include({
        parameter: 'orderBy',
        field: 'ownedBy',
      });
      expect(problem({ orderBy: 'secret' })).to.include({ parameter: 'orderBy', field: 'secret' });
    });
    it('answers 400 to a desc that is not a boolean', () => {
      expect(problem({ desc: 'maybe' })).to.include({ parameter: 'desc' });
    });
  });

  describe('definitions', () => {
    it('refuses a broken definition at start-up with every problem listed', () => {
      let error: unknown;
      try {
        defineListResource({
          table: 'x',
          dto: { type: 'object', properties: { name: { type: 'string' }, ref: { $ref: '#/x' } } },
          columns: { nope: 'n' },
          audited: true,
        });
      } catch (e) {
        error = e;
      }
      expect(error).to.be.instanceOf(ListResourceDefinitionError);
      const problems = (error as ListResourceDefinitionError).problems.join('\n');
      expect(problems)
        .to.match(/columns\.nope/)
        .and.match(/idProperty/)
        .and.match(/createdOn/)
        .and.match(/\$ref/);
    });
  });
});
