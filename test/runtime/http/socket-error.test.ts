// answerClientError, the server's 'clientError' listener, over a raw socket: a request Node's HTTP
// parser refuses gets a complete problem+json response and the connection closes; a connection
// already gone is left alone, and the server goes on serving.
import { once } from 'node:events';
import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import express from 'express';
import { answerClientError, clientErrorResponse, HttpProblemCode } from '@slicekit/runtime/http';

/** Sends `raw` on a new connection and resolves to everything the server wrote before closing. */
async function exchange(port: number, raw: string): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  socket.write(raw);
  await once(socket, 'close');
  return Buffer.concat(chunks).toString('latin1');
}

function parse(response: string) {
  const [head = '', body = ''] = response.split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers = Object.fromEntries(
    headerLines.map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
    }),
  );
  return { statusLine, headers, body };
}

describe('answerClientError', () => {
  let server: Server;
  let port: number;

  before(async () => {
    const app = express();
    app.get('/', (_req, res) => {
      res.json({ ok: true });
    });
    server = app.listen(0, '127.0.0.1');
    server.on('clientError', answerClientError);
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it('answers a control character in a header value with 400 problem+json and closes', async () => {
    const response = await exchange(port, 'GET / HTTP/1.1\r\nHost: x\r\nX-Note: a\x01b\r\n\r\n');
    const { statusLine, headers, body } = parse(response);
    expect(statusLine).to.equal('HTTP/1.1 400 Bad Request');
    expect(headers['content-type']).to.equal('application/problem+json');
    expect(headers.connection).to.equal('close');
    expect(Number(headers['content-length'])).to.equal(Buffer.byteLength(body));
    expect(JSON.parse(body)).to.deep.equal({
      type: 'urn:slicekit:problem:malformed-request',
      title: 'Bad Request',
      status: 400,
      detail: 'a header name or value contains a character HTTP does not allow',
      code: HttpProblemCode.MalformedRequest,
    });
  });

  it('answers headers over the size limit with 431 problem+json', async () => {
    const response = await exchange(
      port,
      `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    const { statusLine, body } = parse(response);
    expect(statusLine).to.equal('HTTP/1.1 431 Request Header Fields Too Large');
    expect(JSON.parse(body)).to.include({ status: 431, code: HttpProblemCode.MalformedRequest });
  });

  it('answers a request line that is not HTTP with 400 problem+json', async () => {
    const { statusLine, body } = parse(await exchange(port, 'HELLO\r\n\r\n'));
    expect(statusLine).to.equal('HTTP/1.1 400 Bad Request');
    expect(JSON.parse(body)).to.include({ detail: 'the request is not valid HTTP/1.1' });
  });

  it('still serves well-formed requests on the same server', async () => {
    const { statusLine, body } = parse(
      await exchange(port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
    );
    expect(statusLine).to.equal('HTTP/1.1 200 OK');
    expect(JSON.parse(body)).to.deep.equal({ ok: true });
  });

  it('only destroys a socket that was reset, closed, or is mid-response', () => {
    const reset = new PassThrough();
    answerClientError(Object.assign(new Error('reset'), { code: 'ECONNRESET' }), reset);
    expect(reset.destroyed).to.equal(true);

    const closed = new PassThrough();
    closed.end();
    expect(() => answerClientError(new Error('late'), closed)).not.to.throw();
    expect(closed.destroyed).to.equal(true);

    const busy = Object.assign(new PassThrough(), { _httpMessage: { headersSent: true } });
    const written: Buffer[] = [];
    busy.on('data', (chunk: Buffer) => written.push(chunk));
    answerClientError(Object.assign(new Error('bad'), { code: 'HPE_INVALID_HEADER_TOKEN' }), busy);
    expect(busy.destroyed).to.equal(true);
    expect(written).to.deep.equal([]);
  });

  it('writes a complete response for a timeout', () => {
    const { statusLine, body } = parse(
      clientErrorResponse(Object.assign(new Error('slow'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' })),
    );
    expect(statusLine).to.equal('HTTP/1.1 408 Request Timeout');
    expect(JSON.parse(body)).to.include({ status: 408, title: 'Request Timeout' });
  });
});
