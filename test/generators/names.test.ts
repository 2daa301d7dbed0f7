// Name forms every template sees: English plurals (by the pluralize library) and case forms that
// keep acronyms whole.
import { expect } from 'chai';
import { kebabCase, nameForms, pluralize, snakeCase, withArticle } from '../../generators/names.js';

describe('entity names', () => {
  it('pluralises the last word as English does', () => {
    const plurals: Record<string, string> = {
      Product: 'Products',
      Category: 'Categories',
      Box: 'Boxes',
      Analysis: 'Analyses',
      Hero: 'Heroes',
      Leaf: 'Leaves',
      News: 'News',
      Sheep: 'Sheep',
      Criterion: 'Criteria',
      Person: 'People',
      OrderLine: 'OrderLines',
      SalesPerson: 'SalesPeople',
    };
    for (const [name, plural] of Object.entries(plurals)) {
      expect(pluralize(name), name).to.equal(plural);
    }
  });

  it('keeps an acronym, or a single capital before a word, in one word', () => {
    expect(snakeCase('OAuth2Token')).to.equal('oauth2_token');
    expect(snakeCase('XMLHttpRequest')).to.equal('xml_http_request');
    expect(kebabCase('APIKey')).to.equal('api-key');
    expect(snakeCase('isDiscontinued')).to.equal('is_discontinued');
    expect(nameForms('change price')).to.deep.equal({
      pascal: 'ChangePrice',
      camel: 'changePrice',
      kebab: 'change-price',
      snake: 'change_price',
      words: 'change price',
    });
  });

  it('puts the indefinite article English puts before a name', () => {
    const cases = [
      'an Order',
      'an enum',
      'an integer',
      'an email',
      'an update',
      'a product',
      'a url',
      'a uuid',
      'a unit',
      'a user',
    ];
    for (const expected of cases) {
      expect(withArticle(expected.replace(/^an? /, ''))).to.equal(expected);
    }
  });
});
