/**
 * A TCP proxy in front of a dependency (PostgreSQL, Redis) that fails the ways a network and a
 * stuck peer do:
 * - `hang`: connections stay open and new ones are accepted, but nothing passes either way, as
 *   with a frozen peer or a dropped network path;
 * - `refuse`: every connection is cut and new ones are reset at once, as with a peer that is down;
 * - `pass`: bytes flow again. Connections that hung are cut then: a stall that ends in a reset.
 */
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

export type ProxyMode = 'pass' | 'hang' | 'refuse';

interface Connection {
  client: Socket;
  upstream: Socket;
  hung: boolean;
}

export class TcpFaultProxy {
  readonly #server: Server;
  readonly #connections = new Set<Connection>();
  #mode: ProxyMode = 'pass';

  private constructor(target: { host: string; port: number }) {
    this.#server = createServer((client) => this.#accept(client, target));
  }

  /** A proxy for `url`'s host and port, listening on a free loopback port. */
  static async start(url: string, defaultPort: number): Promise<TcpFaultProxy> {
    const target = new URL(url);
    const proxy = new TcpFaultProxy({
      host: target.hostname,
      port: Number(target.port || defaultPort),
    });
    proxy.#server.listen(0, '127.0.0.1');
    await once(proxy.#server, 'listening');
    return proxy;
  }

  get port(): number {
    return (this.#server.address() as { port: number }).port;
  }

  /** `url` with its host and port replaced by the proxy's. */
  through(url: string): string {
    const proxied = new URL(url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(this.port);
    return proxied.toString();
  }

  set mode(mode: ProxyMode) {
    this.#mode = mode;
    for (const connection of this.#connections) {
      if (mode === 'refuse' || (mode === 'pass' && connection.hung)) this.#cut(connection);
      else if (mode === 'hang') this.#hang(connection);
    }
  }

  async close(): Promise<void> {
    for (const connection of this.#connections) this.#cut(connection);
    this.#server.close();
    await once(this.#server, 'close');
  }

  #accept(client: Socket, target: { host: string; port: number }) {
    client.on('error', () => {});
    if (this.#mode === 'refuse') {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    upstream.on('error', () => {});
    const connection: Connection = { client, upstream, hung: false };
    this.#connections.add(connection);
    for (const socket of [client, upstream]) {
      socket.on('close', () => this.#cut(connection));
    }
    if (this.#mode === 'hang') {
      this.#hang(connection);
      return;
    }
    client.pipe(upstream);
    upstream.pipe(client);
  }

  /** Nothing passes any more; what arrives is read and thrown away, so no side sees a full window. */
  #hang(connection: Connection) {
    connection.hung = true;
    const { client, upstream } = connection;
    client.unpipe(upstream);
    upstream.unpipe(client);
    for (const socket of [client, upstream]) {
      socket.removeAllListeners('data');
      socket.on('data', () => {});
      socket.resume();
    }
  }

  #cut(connection: Connection) {
    this.#connections.delete(connection);
    connection.client.destroy();
    connection.upstream.destroy();
  }
}
