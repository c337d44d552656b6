import { createConnection, createServer, type Server as NetServer, type Socket } from 'node:net';
import { LISTENER_APPLICATION_NAME } from '../../src/platform/live/notice-listener';

/*
 * A TCP proxy between the service and PostgreSQL that counts the SQL statements the service sends,
 * by connection name (`application_name`), from the protocol's frontend messages: a simple Query
 * ('Q') is one statement, an Execute ('E') one run of the statement its portal was bound from
 * (Parse 'P', Bind 'B'). Work outside requests (webhook jobs, the job queue, the event listener)
 * has no request log line to count it, and pg_stat_statements is not loaded on this machine's
 * server; the proxy sees all of it without changing a byte. It is used for the counting runs only
 * (it adds a hop to every statement), never for timed ones.
 */

/** Statements of one connection name: all but transaction control, and transaction control. */
export interface StatementCounts {
  statements: number;
  /** BEGIN, COMMIT, ROLLBACK, SAVEPOINT, RELEASE (the request log does not count these). */
  transactionControl: number;
  connections: number;
}

const TRANSACTION_CONTROL =
  /^\s*(begin|start\s+transaction|commit|end|rollback|savepoint|release)\b/i;

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const PROTOCOL_3 = 196608;

/**
 * Reads one connection's frontend messages as they stream past: `count` is called with the
 * connection's name and the text of each statement run.
 */
export class FrontendReader {
  private pending: Buffer = Buffer.alloc(0);
  private startup = true;
  private name = '';
  private readonly prepared = new Map<string, string>();
  private readonly portals = new Map<string, string>();

  constructor(private readonly count: (name: string, sql: string) => void) {}

  get applicationName(): string {
    return this.name;
  }

  read(chunk: Buffer): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    let at = 0;
    for (;;) {
      const header = this.startup ? 4 : 5;
      if (this.pending.length - at < header) {
        break;
      }
      const length = this.pending.readInt32BE(this.startup ? at : at + 1);
      const size = this.startup ? length : length + 1;
      if (this.pending.length - at < size) {
        break;
      }
      const message = this.pending.subarray(at, at + size);
      if (this.startup) {
        this.readStartup(message);
      } else {
        this.readTyped(message);
      }
      at += size;
    }
    this.pending = this.pending.subarray(at);
  }

  /** An untyped message: SSL or GSS negotiation (another follows), or the startup message. */
  private readStartup(message: Buffer): void {
    const code = message.readInt32BE(4);
    if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
      return;
    }
    this.startup = false;
    if (code !== PROTOCOL_3) {
      return;
    }
    const fields = message.subarray(8).toString('utf8').split('\0');
    for (let i = 0; i + 1 < fields.length; i += 2) {
      if (fields[i] === 'application_name') {
        this.name = fields[i + 1] ?? '';
      }
    }
  }

  private readTyped(message: Buffer): void {
    const body = message.subarray(5);
    const strings = (n: number): string[] => body.toString('utf8').split('\0', n);
    switch (String.fromCharCode(message[0] as number)) {
      case 'Q':
        this.count(this.name, strings(1)[0] ?? '');
        break;
      case 'P': {
        const [statement = '', sql = ''] = strings(2);
        this.prepared.set(statement, sql);
        break;
      }
      case 'B': {
        const [portal = '', statement = ''] = strings(2);
        this.portals.set(portal, this.prepared.get(statement) ?? '');
        break;
      }
      case 'E':
        this.count(this.name, this.portals.get(strings(1)[0] ?? '') ?? '');
        break;
      default:
        break;
    }
  }
}

/** The proxy: listens on 127.0.0.1, forwards each connection to the database's address. */
export class StatementProxy {
  private readonly counts = new Map<string, StatementCounts>();
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: NetServer,
    private readonly target: URL,
  ) {}

  /** Starts a proxy in front of the server of `dbUrl`. */
  static async start(dbUrl: string): Promise<StatementProxy> {
    const target = new URL(dbUrl);
    const server = createServer();
    const proxy = new StatementProxy(server, target);
    server.on('connection', (client) => proxy.relay(client));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  /** `dbUrl` with the proxy's address instead of the server's. */
  get url(): string {
    const url = new URL(this.target.toString());
    url.hostname = '127.0.0.1';
    url.port = String((this.server.address() as { port: number }).port);
    return url.toString();
  }

  /** Statements counted so far, by connection name ('' for connections without one). */
  snapshot(): Map<string, StatementCounts> {
    return new Map([...this.counts].map(([name, c]) => [name, { ...c }]));
  }

  private entry(name: string): StatementCounts {
    let counts = this.counts.get(name);
    if (!counts) {
      counts = { statements: 0, transactionControl: 0, connections: 0 };
      this.counts.set(name, counts);
    }
    return counts;
  }

  private relay(client: Socket): void {
    const upstream = createConnection({
      host: this.target.hostname,
      port: Number(this.target.port || 5432),
    });
    let counted = false;
    const reader = new FrontendReader((name, sql) => {
      const counts = this.entry(name);
      if (!counted) {
        counted = true;
        counts.connections += 1;
      }
      if (TRANSACTION_CONTROL.test(sql)) {
        counts.transactionControl += 1;
      } else {
        counts.statements += 1;
      }
    });
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.setNoDelay(true);
      socket.on('close', () => {
        this.sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
      socket.on('error', () => undefined);
    }
    client.on('data', (chunk: Buffer) => reader.read(chunk));
    client.pipe(upstream);
    upstream.pipe(client);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) {
      socket.destroy();
    }
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** What was counted between two snapshots, by connection name. */
export function countedBetween(
  before: ReadonlyMap<string, StatementCounts>,
  after: ReadonlyMap<string, StatementCounts>,
): Map<string, StatementCounts> {
  const out = new Map<string, StatementCounts>();
  for (const [name, c] of after) {
    const b = before.get(name) ?? { statements: 0, transactionControl: 0, connections: 0 };
    out.set(name, {
      statements: c.statements - b.statements,
      transactionControl: c.transactionControl - b.transactionControl,
      connections: c.connections - b.connections,
    });
  }
  return out;
}

/** The statements of every connection but the event listener's (named by its application_name). */
export function besidesListener(counts: ReadonlyMap<string, StatementCounts>): {
  statements: number;
  transactionControl: number;
} {
  let statements = 0;
  let transactionControl = 0;
  for (const [name, c] of counts) {
    if (name !== LISTENER_APPLICATION_NAME) {
      statements += c.statements;
      transactionControl += c.transactionControl;
    }
  }
  return { statements, transactionControl };
}

/** The event listener's statements (its reads of the change log, its LISTENs). */
export const listenerStatements = (counts: ReadonlyMap<string, StatementCounts>): number =>
  counts.get(LISTENER_APPLICATION_NAME)?.statements ?? 0;

/**
 * The requests among a service's log lines (LOG_LEVEL=info) and the SQL statements their lines
 * count (`sqlStatements`, BEGIN/COMMIT not counted).
 */
export function loggedRequests(lines: readonly string[]): { statements: number; requests: number } {
  let statements = 0;
  let requests = 0;
  for (const line of lines) {
    if (line.includes('"sqlStatements"')) {
      statements += (JSON.parse(line) as { sqlStatements?: number }).sqlStatements ?? 0;
      requests += 1;
    }
  }
  return { statements, requests };
}

/** What a service sent behind the proxy while some work ran, set apart as the passes report it. */
export interface WorkStatements<T> {
  /** What `work` answered. */
  result: T;
  /** Outside the requests (their log lines) and the event listener, less the idle rate. */
  background: number;
  /** BEGIN, COMMIT and the like outside the listener (the requests' included). */
  transactionControl: number;
  /** The requests' own (their log lines). */
  requests: { statements: number; requests: number };
  /** The event listener's. */
  listener: number;
  /** Outside the listener, per second, while nothing happened. */
  idlePerSecond: number;
}

/** How long the idle rate is read before the work. */
const IDLE_MS = 3_000;

/**
 * Reads what the service sends while idle (3 s), then runs `work` and counts what it sent
 * meanwhile, behind `proxy`; `lines` is the service's log (LOG_LEVEL=info), as it grows.
 */
export async function countWork<T>(
  proxy: StatementProxy,
  lines: readonly string[],
  work: () => Promise<T>,
): Promise<WorkStatements<T>> {
  const idle0 = proxy.snapshot();
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
  const idlePerSecond =
    besidesListener(countedBetween(idle0, proxy.snapshot())).statements / (IDLE_MS / 1000);
  const before = proxy.snapshot();
  const mark = lines.length;
  const started = performance.now();
  const result = await work();
  const seconds = (performance.now() - started) / 1000;
  const counted = countedBetween(before, proxy.snapshot());
  const requests = loggedRequests(lines.slice(mark));
  const all = besidesListener(counted);
  return {
    result,
    background: all.statements - requests.statements - idlePerSecond * seconds,
    transactionControl: all.transactionControl,
    requests,
    listener: listenerStatements(counted),
    idlePerSecond,
  };
}
