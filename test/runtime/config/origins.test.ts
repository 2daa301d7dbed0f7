// CORS_ORIGINS: exact web origins, comma-separated; anything a browser would not send as its
// Origin stops the app with a ConfigError naming the variable.
import { expect } from 'chai';
import { ConfigError, envOrigins } from '@slicekit/runtime/config';

describe('envOrigins', () => {
  it('reads exact origins, trimmed, without duplicates; none when unset or blank', () => {
    expect(envOrigins({}, 'CORS_ORIGINS')).to.deep.equal([]);
    expect(envOrigins({ CORS_ORIGINS: ' ' }, 'CORS_ORIGINS')).to.deep.equal([]);
    expect(
      envOrigins(
        { CORS_ORIGINS: 'https://app.example.com, http://localhost:5173,https://app.example.com' },
        'CORS_ORIGINS',
      ),
    ).to.deep.equal(['https://app.example.com', 'http://localhost:5173']);
  });

  for (const bad of [
    '*',
    'https://*.example.com',
    'https://app.example.com/',
    'https://app.example.com/path',
    'https://App.example.com',
    'https://app.example.com:443',
    'https://user:pw@app.example.com',
    'https://app.example.com?x=1',
    'app.example.com',
    'ftp://app.example.com',
    'null',
    'https://a.example.com,,https://b.example.com',
    'https://a.example.com,',
  ]) {
    it(`refuses ${JSON.stringify(bad)}, naming CORS_ORIGINS`, () => {
      let error: unknown;
      try {
        envOrigins({ CORS_ORIGINS: bad }, 'CORS_ORIGINS');
      } catch (caught) {
        error = caught;
      }
      expect(error).to.be.instanceOf(ConfigError);
      expect((error as ConfigError).variable).to.equal('CORS_ORIGINS');
      expect((error as ConfigError).message).to.match(/^invalid setting CORS_ORIGINS=/);
    });
  }
});
