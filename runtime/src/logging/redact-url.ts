// Secrets passed in a query string (an OAuth token, an API key, a signed URL's signature) must not
// reach the logs with the URL that carried them.

/**
 * Query parameters whose values `redactUrl` hides by default, compared case-insensitively with
 * `-` read as `_` (so `X-Amz-Signature` is `x_amz_signature`).
 */
export const SECRET_QUERY_PARAMETERS: readonly string[] = [
  'access_token',
  'refresh_token',
  'id_token',
  'token',
  'jwt',
  'auth',
  'authorization',
  'session',
  'session_id',
  'sessionid',
  'api_key',
  'apikey',
  'key',
  'secret',
  'client_secret',
  'password',
  'passwd',
  'pwd',
  'signature',
  'sig',
  'code',
  'x_amz_signature',
  'x_amz_credential',
  'x_amz_security_token',
  'x_goog_signature',
  'x_goog_credential',
];

/** What a hidden value is replaced with. */
export const REDACTED = '[REDACTED]';

/** Options of `redactUrl`. */
export interface RedactUrlOptions {
  /**
   * The parameter names to hide; extend the default with `[...SECRET_QUERY_PARAMETERS, 'pin']`.
   * @default SECRET_QUERY_PARAMETERS
   */
  secrets?: readonly string[];
}

function normalised(name: string): string {
  let decoded = name.replace(/\+/g, ' ');
  try {
    decoded = decodeURIComponent(decoded);
  } catch {
    // A malformed escape is compared as written.
  }
  return decoded.trim().toLowerCase().replace(/-/g, '_').replace(/\[\]$/, '');
}

const defaultSecrets = new Set(SECRET_QUERY_PARAMETERS.map(normalised));

/**
 * `url` (a path with its query string, as `req.originalUrl`) with the value of every secret query
 * parameter replaced by `[REDACTED]`; everything else is kept as written.
 *
 * @example
 * redactUrl('/v1/products?access_token=abc&pageSize=5') // '/v1/products?access_token=[REDACTED]&pageSize=5'
 */
export function redactUrl(url: string, options: RedactUrlOptions = {}): string {
  const query = url.indexOf('?');
  if (query < 0) return url;
  const secrets = options.secrets ? new Set(options.secrets.map(normalised)) : defaultSecrets;
  const hash = url.indexOf('#', query);
  const end = hash < 0 ? url.length : hash;
  const pairs = url
    .slice(query + 1, end)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals < 0 ? pair : pair.slice(0, equals);
      return secrets.has(normalised(name)) ? `${name}=${REDACTED}` : pair;
    });
  return `${url.slice(0, query + 1)}${pairs.join('&')}${url.slice(end)}`;
}
