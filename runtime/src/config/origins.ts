// A list of exact web origins from one setting (CORS_ORIGINS), each checked strictly: a typo
// must stop the app, not silently leave browsers refused or, worse, allowed.
import { ConfigError } from './errors.js';
import type { Env } from './env.js';

const ACCEPTS =
  'comma-separated origins such as https://app.example.com (scheme http or https, host, ' +
  'optional port; no path, query, user or wildcard)';

/**
 * Comma-separated exact origins (`https://app.example.com,http://localhost:5173`), as a browser
 * sends them in `Origin`: scheme `http` or `https`, lower-case host, a port only when not the
 * default, no trailing slash, path, query, credentials or `*`. Unset or blank is none (`[]`);
 * anything else throws `ConfigError` naming the variable.
 *
 * @example
 * const origins = envOrigins(process.env, 'CORS_ORIGINS'); // ['https://app.example.com']
 */
export function envOrigins(env: Env, name: string): string[] {
  const value = env[name]?.trim();
  if (value === undefined || value === '') return [];
  const origins = value.split(',').map((entry) => entry.trim());
  for (const origin of origins) {
    if (!isExactOrigin(origin)) throw new ConfigError(name, value, ACCEPTS);
  }
  return [...new Set(origins)];
}

/** Whether `text` is written exactly as the `Origin` header of a browser would carry it. */
function isExactOrigin(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  // URL parsing keeps a `*` in a host name; no browser sends one.
  const web = url.protocol === 'http:' || url.protocol === 'https:';
  return web && url.origin === text && !url.hostname.includes('*');
}
