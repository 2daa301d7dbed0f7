// Draining a server: it keeps listening and answering while the requests in flight finish, every
// answer from then on closes its connection, then it closes; an idle keep-alive connection does
// not hold it open.
import { once } from 'node:events';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import express from 'express';
import { trackRequests } from '@slicekit/runtime/health';

interface Answer {
  status: number;
  connection: string | undefined;
  body: string;
}

function get(port: number, path: string, agent?: http.Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }),
        );
      })
      .on('error', reject);
  });
}

describe('trackRequests', () => {
  let server: Server;
  let port: number;
  let release: () => void;
  let held: Promise<void>;

  beforeEach(async () => {
    held = new Promise((resolve) => (release = resolve));
    const app = express();
    app.get('/slow', async (_req, res) => {
      await held;
      res.send('slow done');
    });
    app.get('/fast', (_req, res) => void res.send('fast'));
    server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });

  afterEach(() => {
    release();
    server.closeAllConnections();
    server.close();
  });

  it('answers new requests while one in flight finishes, then closes', async () => {
    const requests = trackRequests(server);
    const slow = get(port, '/slow');
    while (requests.inFlight < 1) await new Promise((resolve) => setTimeout(resolve, 5));

    let drained = false;
    const drain = requests.drain().then(() => (drained = true));
    expect(requests.draining).to.equal(true);

    const during = await get(port, '/fast');
    expect(during).to.deep.equal({ status: 200, connection: 'close', body: 'fast' });
    expect(drained, 'still open while the slow request runs').to.equal(false);

    release();
    expect(await slow).to.deep.include({ status: 200, body: 'slow done', connection: 'close' });
    await drain;
    expect(server.listening).to.equal(false);
    const refused = await get(port, '/fast').then(
      () => undefined,
      (error: NodeJS.ErrnoException) => error.code,
    );
    expect(refused).to.equal('ECONNREFUSED');
  });

  it('is not held open by an idle keep-alive connection', async () => {
    const requests = trackRequests(server);
    const agent = new http.Agent({ keepAlive: true });
    try {
      const before = await get(port, '/fast', agent);
      expect(before.connection).to.equal('keep-alive');
      const [socket] = Object.values(agent.freeSockets).flat();
      expect(socket, 'a pooled keep-alive socket').not.to.equal(undefined);
      const closed = once(socket!, 'close');
      await requests.drain();
      await closed;
      expect(server.listening).to.equal(false);
    } finally {
      agent.destroy();
    }
  });
});
