// redactUrl: the value of a secret query parameter never reaches a log line with its URL.
import { expect } from 'chai';
import { REDACTED, redactUrl, SECRET_QUERY_PARAMETERS } from '@slicekit/runtime/logging';

describe('redactUrl', () => {
  it('hides the values of secret parameters and keeps everything else as written', () => {
    expect(
      redactUrl('/v1/products?access_token=eyJhbGciOi.abc&pageSize=5&filter=name:Contains:a%20b'),
    ).to.equal(`/v1/products?access_token=${REDACTED}&pageSize=5&filter=name:Contains:a%20b`);
  });

  it('compares names case-insensitively, reads - as _ and decodes them', () => {
    const url =
      '/files?X-Amz-Signature=f00d&API_KEY=k1&Api-Key=k2&%61pikey=k3&Password=hunter2&sig&token[]=t';
    const redacted = redactUrl(url);
    for (const secret of ['f00d', 'k1', 'k2', 'k3', 'hunter2', '=t']) {
      expect(redacted).not.to.contain(secret);
    }
    expect(redacted).to.equal(
      `/files?X-Amz-Signature=${REDACTED}&API_KEY=${REDACTED}&Api-Key=${REDACTED}` +
        `&%61pikey=${REDACTED}&Password=${REDACTED}&sig=${REDACTED}&token[]=${REDACTED}`,
    );
  });

  it('leaves a URL without secrets, or without a query, unchanged', () => {
    for (const url of [
      '/v1/products',
      '/v1/products?',
      '/v1/products?pageSize=5&search=token',
      '/a?%=1',
    ]) {
      expect(redactUrl(url)).to.equal(url);
    }
  });

  it('takes another list of names', () => {
    expect(redactUrl('/a?pin=1234&token=t', { secrets: ['PIN'] })).to.equal(
      `/a?pin=${REDACTED}&token=t`,
    );
    expect(SECRET_QUERY_PARAMETERS).to.include.members([
      'access_token',
      'api_key',
      'client_secret',
    ]);
  });
});
