// The statements an app sends its database, read on the wire: a TCP proxy between the app and
// PostgreSQL or MySQL that forwards every byte and reads the SQL text of each statement the client
// sends (PostgreSQL Query and Execute messages, MySQL COM_QUERY and COM_STMT_PREPARE packets), so
// what an app issues is counted from outside its process, whatever its driver or ORM.
import net from 'node:net';

export type Protocol = 'postgres' | 'mysql';

/** The statements of client-to-server bytes, read as they arrive (they may split anywhere). */
class StatementReader {
  private buffered: Buffer = Buffer.alloc(0);
  private started = false;

  constructor(
    private readonly protocol: Protocol,
    private readonly onStatement: (sql: string) => void,
  ) {}

  push(chunk: Buffer): void {
    this.buffered = this.buffered.length ? Buffer.concat([this.buffered, chunk]) : chunk;
    while (this.protocol === 'postgres' ? this.nextPostgres() : this.nextMysql());
  }

  /** PostgreSQL prepared statements by name ('' the unnamed one), and the portal bound to each. */
  private readonly prepared = new Map<string, string>();
  private readonly portals = new Map<string, string>();

  // PostgreSQL: the start-up message (and an SSLRequest before it) has no type byte; every later
  // message is a type byte and a length counting itself. A simple Query is one statement; in the
  // extended protocol a statement runs at its Execute, which names a portal, which Bind made from a
  // statement Parse named. A statement prepared under a name is parsed once per connection and
  // then only bound and executed (the PostgreSQL idempotency store's reservation and completion
  // are): counting Parse messages would miss every later run.
  private nextPostgres(): boolean {
    const data = this.buffered;
    if (!this.started) {
      if (data.length < 8) return false;
      const length = data.readInt32BE(0);
      if (data.length < length) return false;
      // 80877103 is SSLRequest, 80877104 GSSENCRequest: the real start-up message follows.
      const code = data.readInt32BE(4);
      if (code !== 80877103 && code !== 80877104) this.started = true;
      this.buffered = data.subarray(length);
      return true;
    }
    if (data.length < 5) return false;
    const length = data.readInt32BE(1);
    if (data.length < length + 1) return false;
    const type = String.fromCharCode(data[0]!);
    const body = data.subarray(5, length + 1);
    if (type === 'Q') this.onStatement(cString(body, 0));
    // Parse: a statement name, then the SQL text.
    if (type === 'P') this.prepared.set(cString(body, 0), cString(body, body.indexOf(0) + 1));
    // Bind: a portal name, then the statement's.
    if (type === 'B') {
      const statement = cString(body, body.indexOf(0) + 1);
      this.portals.set(
        cString(body, 0),
        this.prepared.get(statement) ?? `<statement ${statement}>`,
      );
    }
    // Execute: the portal's name.
    if (type === 'E') this.onStatement(this.portals.get(cString(body, 0)) ?? '<unbound portal>');
    this.buffered = data.subarray(length + 1);
    return true;
  }

  // MySQL: packets of a 3-byte length and a sequence number; a command opens a sequence (0).
  private nextMysql(): boolean {
    const data = this.buffered;
    if (data.length < 4) return false;
    const length = data.readUIntLE(0, 3);
    if (data.length < length + 4) return false;
    const sequence = data[3];
    const command = data[4];
    // 0x03 COM_QUERY and 0x16 COM_STMT_PREPARE carry SQL text.
    if (sequence === 0 && (command === 0x03 || command === 0x16)) {
      this.onStatement(data.subarray(5, length + 4).toString('utf8'));
    }
    this.buffered = data.subarray(length + 4);
    return true;
  }
}

function cString(buffer: Buffer, start: number): string {
  const end = buffer.indexOf(0, start);
  return buffer.subarray(start, end < 0 ? buffer.length : end).toString('utf8');
}

/** A proxy to a database server that keeps the statements clients send through it. */
export class StatementProxy {
  /** Statements seen since the proxy started or `reset()`, oldest first. */
  statements: string[] = [];
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
  ) {}

  /** Starts a proxy on a free local port forwarding to the server of `url`. */
  static async start(url: string, protocol: Protocol): Promise<StatementProxy> {
    const target = new URL(url);
    const holder: { proxy?: StatementProxy } = {};
    const server = net.createServer((client) => {
      const upstream = net.connect(Number(target.port), target.hostname);
      const proxy = holder.proxy!;
      const reader = new StatementReader(protocol, (sql) => proxy.statements.push(sql));
      for (const socket of [client, upstream]) {
        proxy.sockets.add(socket);
        socket.on('close', () => proxy.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.on('data', (chunk: Buffer) => reader.push(chunk));
      client.pipe(upstream).on('close', () => client.destroy());
      upstream.pipe(client).on('close', () => upstream.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    holder.proxy = new StatementProxy(server, (server.address() as net.AddressInfo).port);
    return holder.proxy;
  }

  /** `url` with its host and port replaced by the proxy's. */
  url(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = '127.0.0.1';
    parsed.port = String(this.port);
    return parsed.toString();
  }

  reset(): void {
    this.statements = [];
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * A statement with its values taken out (numbers, quoted strings, `$n` and `?` placeholders),
 * whitespace and case folded: two apps issuing the same statement with other values read alike.
 */
export function statementShape(sql: string): string {
  return sql
    .replace(/'(?:[^']|'')*'/g, '?')
    .replace(/\$\d+/g, '?')
    .replace(/\b\d+(\.\d+)?\b/g, '?')
    .replace(/\s+/g, ' ')
    .replace(/;\s*$/, '')
    .trim()
    .toLowerCase();
}
