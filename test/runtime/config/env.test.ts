// Strict settings from the environment: each reader understands exactly the values it documents
// and refuses anything else with a ConfigError naming the variable, the value and what it accepts.
import { expect } from 'chai';
import { authOptionsFromEnv } from '@slicekit/runtime/auth';
import { ConfigError, envBoolean, envChoice, envInteger } from '@slicekit/runtime/config';

function refusal(read: () => unknown): ConfigError {
  try {
    read();
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return error as ConfigError;
  }
  expect.fail('the value was accepted');
}

describe('settings from the environment', () => {
  describe('envBoolean', () => {
    it('reads true/false, 1/0, yes/no and on/off in any case, trimmed', () => {
      for (const word of ['true', 'TRUE', 'True', '1', 'yes', 'YES', 'on', 'On', ' true ']) {
        expect(envBoolean({ FLAG: word }, 'FLAG', false), word).to.equal(true);
      }
      for (const word of ['false', 'FALSE', 'False', '0', 'no', 'No', 'off', 'OFF']) {
        expect(envBoolean({ FLAG: word }, 'FLAG', true), word).to.equal(false);
      }
    });

    it('gives the default when the variable is unset or blank', () => {
      expect(envBoolean({}, 'FLAG', true)).to.equal(true);
      expect(envBoolean({ FLAG: '' }, 'FLAG', false)).to.equal(false);
      expect(envBoolean({ FLAG: '  ' }, 'FLAG', true)).to.equal(true);
    });

    it('refuses any other value, naming the variable, the value and the accepted words', () => {
      for (const word of ['t', 'y', 'enabled', '2', 'truee', 'null']) {
        const error = refusal(() => envBoolean({ FLAG: word }, 'FLAG', false));
        expect(error).to.include({ code: 'config_invalid', variable: 'FLAG', value: word });
        expect(error.message).to.equal(
          `invalid setting FLAG="${word}": expected true, false, 1, 0, yes, no, on or off (any case)`,
        );
      }
    });
  });

  describe('envInteger', () => {
    it('reads whole numbers within the bounds', () => {
      expect(envInteger({ PORT: '8080' }, 'PORT', 3000, { min: 1, max: 65535 })).to.equal(8080);
      expect(envInteger({ PORT: '65535' }, 'PORT', 3000, { min: 1, max: 65535 })).to.equal(65535);
      expect(envInteger({ N: '-5' }, 'N', 0)).to.equal(-5);
      expect(envInteger({}, 'PORT', 3000, { min: 1 })).to.equal(3000);
    });

    it('refuses fractions, exponents, hex, units, words and values out of bounds', () => {
      for (const value of ['3000.5', '3e3', '0x10', '10s', 'abc', '1_000', '0', '65536']) {
        const error = refusal(() =>
          envInteger({ PORT: value }, 'PORT', 3000, { min: 1, max: 65535 }),
        );
        expect(error).to.include({ variable: 'PORT', value });
        expect(error.message).to.equal(
          `invalid setting PORT="${value}": expected a whole number from 1 to 65535`,
        );
      }
      expect(refusal(() => envInteger({ T: '-1' }, 'T', 5, { min: 0 })).accepts).to.equal(
        'a whole number of at least 0',
      );
      expect(refusal(() => envInteger({ T: '99999999999999999' }, 'T', 5)).accepts).to.equal(
        'a whole number',
      );
    });
  });

  describe('envChoice', () => {
    const levels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

    it('answers the listed spelling of a choice given in any case', () => {
      expect(envChoice({ LOG_LEVEL: 'DEBUG' }, 'LOG_LEVEL', levels, 'info')).to.equal('debug');
      expect(envChoice({}, 'LOG_LEVEL', levels, 'info')).to.equal('info');
    });

    it('refuses a value that is not a choice, listing the choices', () => {
      const error = refusal(() => envChoice({ LOG_LEVEL: 'verbose' }, 'LOG_LEVEL', levels, 'info'));
      expect(error.message).to.equal(
        'invalid setting LOG_LEVEL="verbose": expected one of fatal, error, warn, info, debug, trace, silent',
      );
    });
  });

  describe('AUTH_REQUIRED through authOptionsFromEnv', () => {
    it('requires a token for every spelling of true, and not for every spelling of false', () => {
      for (const word of ['true', 'TRUE', 'True', 'on', 'ON', 'yes', '1']) {
        expect(authOptionsFromEnv({ AUTH_REQUIRED: word }).required, word).to.equal(true);
      }
      for (const word of ['false', 'FALSE', 'off', 'no', '0']) {
        expect(authOptionsFromEnv({ AUTH_REQUIRED: word }).required, word).to.equal(false);
      }
    });

    it('stops on an AUTH_REQUIRED it does not understand instead of leaving routes open', () => {
      const error = refusal(() => authOptionsFromEnv({ AUTH_REQUIRED: 'enabled' }));
      expect(error.message).to.contain('AUTH_REQUIRED="enabled"');
    });
  });
});
