// A request Node's HTTP parser refuses (a control character in a header value, headers too large,
// a request too slow to arrive) never reaches Express; Node answers it with a bare status line.
// `answerClientError` is the server's 'clientError' listener that answers with problem+json.
import type { Duplex } from 'node:stream';
import { HttpProblemCode } from './client-error.js';
import { PROBLEM_CONTENT_TYPE, problemDetails, statusTitle } from './problem.js';

/** The status and words for a parser error code; Node's own default answers use the same statuses. */
function refusalOf(code: unknown): { status: number; detail: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, detail: 'the request headers are too large' };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, detail: 'the chunk extensions of the request body are too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, detail: 'the request did not arrive in time' };
    case 'HPE_INVALID_HEADER_TOKEN':
      return {
        status: 400,
        detail: 'a header name or value contains a character HTTP does not allow',
      };
    default:
      return { status: 400, detail: 'the request is not valid HTTP/1.1' };
  }
}

/**
 * The complete HTTP/1.1 response (status line, headers, problem+json body) refusing a request the
 * parser could not read because of `error`; the connection is closed after it.
 */
export function clientErrorResponse(error: unknown): string {
  const { status, detail } = refusalOf((error as { code?: unknown } | null)?.code);
  // No `instance`: the request line was not read, so there is no path to name.
  const problem = problemDetails(HttpProblemCode.MalformedRequest, { status, detail });
  const body = JSON.stringify(problem);
  return (
    `HTTP/1.1 ${status} ${statusTitle(status)}\r\n` +
    `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n' +
    '\r\n' +
    body
  );
}

/**
 * The server's `'clientError'` listener: answers a request the HTTP parser refused with a
 * problem+json response and closes the connection. A connection the client already reset or
 * closed, or one on which a response has started, is only destroyed: nothing more can be said on it.
 *
 * @example
 * const server = app.listen(port);
 * server.on('clientError', answerClientError);
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  // The response Node is writing on this connection, if any (as Node's own default checks): once
  // its headers are on the wire, another status line would corrupt it.
  const current = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } | null })
    ._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || current?.headersSent === true) {
    socket.destroy();
    return;
  }
  // Destroyed once the answer is flushed, so a client that never closes cannot hold the socket.
  socket.end(clientErrorResponse(error), () => socket.destroy());
}
