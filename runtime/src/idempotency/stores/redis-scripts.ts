// The Lua scripts of the Redis store. Each is one round trip and runs atomically on the server,
// so a check of the stored token and the write that depends on it cannot be interleaved.
import { createHash } from 'node:crypto';
import { TOKEN_LENGTH } from './redis-record.js';

export interface LuaScript {
  readonly source: string;
  readonly sha1: string;
}

function script(source: string): LuaScript {
  return { source, sha1: createHash('sha1').update(source).digest('hex') };
}

/**
 * Reclaim: KEYS[1] key; ARGV[1] old token, ARGV[2] new record, ARGV[3] PX.
 * Replaces the entry only while it still carries the old token (or is gone), so of two callers
 * that both saw the same expired entry exactly one takes it; the other re-reads the winner's.
 */
export const reclaimScript = script(`
local current = redis.call('GET', KEYS[1])
if current and string.sub(current, 1, ${TOKEN_LENGTH}) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1`);

/**
 * Complete: KEYS[1] key; ARGV[1] token..'102', ARGV[2] response record, ARGV[3] PX.
 * Fenced: writes only over the in-flight placeholder of this very reservation.
 */
export const completeScript = script(`
local current = redis.call('GET', KEYS[1])
if not current or string.sub(current, 1, ${TOKEN_LENGTH + 3}) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1`);

/** Release: KEYS[1] key; ARGV[1] token..'102'. Deletes only this reservation's placeholder. */
export const releaseScript = script(`
local current = redis.call('GET', KEYS[1])
if not current or string.sub(current, 1, ${TOKEN_LENGTH + 3}) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1`);
