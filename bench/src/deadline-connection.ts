import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { classifyAnswer, type RequestEnd } from './deadline-tally.js';
import { ResponseReader } from './response-reader.js';

export type Ended = RequestEnd & { retryAfter?: string };

export interface Endpoint {
  host: string;
  port: number;
  /** Written before each request line's CRLF CRLF: Host and Authorization. */
  headerLines: string;
}

export function endpointOf(origin: string, apiKey: string): Endpoint {
  const { hostname, port } = new URL(origin);
  return {
    host: hostname,
    port: Number(port),
    headerLines: `Host: ${hostname}:${port}\r\nAuthorization: Bearer ${apiKey}\r\n`,
  };
}

/**
 * One keep-alive connection with at most one request outstanding, as one client of a crowd has.
 * A request not answered `deadlineMs` after its start is given up and the connection closed, as
 * a load balancer or a mobile client with a timeout does; the next request opens a new one.
 */
export class DeadlineConnection {
  private socket: Socket | undefined;
  private reader = new ResponseReader();
  private settle: ((end: Ended) => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** When the outstanding request started, what its latency is measured from. */
  private startedAt = 0;

  constructor(
    private readonly endpoint: Endpoint,
    private readonly deadlineMs: number,
  ) {}

  /** GET `path`, timed from `startedAt` (performance.now()), which may lie before now. */
  get(path: string, startedAt: number): Promise<Ended> {
    this.startedAt = startedAt;
    return new Promise((resolve) => {
      this.settle = (end) => {
        this.settle = undefined;
        clearTimeout(this.timer);
        resolve(end);
      };
      const left = this.deadlineMs - (performance.now() - startedAt);
      this.timer = setTimeout(
        () => this.giveUp({ kind: 'past-deadline', connecting: this.socket?.connecting === true }),
        Math.max(0, left),
      );
      const socket = this.socket ?? this.open();
      socket.write(`GET ${path} HTTP/1.1\r\n${this.endpoint.headerLines}\r\n`, 'latin1');
    });
  }

  /** Whether a socket is open or opening: a request now would not have to connect first. */
  get isOpen(): boolean {
    return this.socket !== undefined;
  }

  /**
   * Opens the connection ahead of the first request; resolves once it is open or has failed
   * (the first request then opens another).
   */
  connect(): Promise<void> {
    const socket = this.socket ?? this.open();
    if (!socket.connecting) return Promise.resolve();
    return new Promise((resolve) => {
      socket.once('connect', () => resolve());
      socket.once('close', () => resolve());
    });
  }

  /** Closes the connection; a request outstanding on it ends as an error. */
  close(): void {
    this.giveUp({ kind: 'error' });
  }

  private open(): Socket {
    this.reader = new ResponseReader();
    const socket = connect({ host: this.endpoint.host, port: this.endpoint.port });
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.read(chunk));
    socket.on('error', () => this.drop(socket, { kind: 'error' }));
    socket.on('close', () => {
      const head = this.reader.closed();
      this.drop(socket, head ? this.answered(head.status, head.retryAfter) : { kind: 'error' });
    });
    this.socket = socket;
    return socket;
  }

  private read(chunk: Buffer): void {
    let head: ReturnType<ResponseReader['feed']>;
    try {
      head = this.reader.feed(chunk);
    } catch {
      this.giveUp({ kind: 'error' });
      return;
    }
    if (!head) return;
    // The server closes after this answer: the next request must not be written to a socket on
    // its way out, and fail as if the server had refused it.
    if (!head.keepAlive) this.forget();
    this.settle?.(this.answered(head.status, head.retryAfter));
  }

  private answered(status: number, retryAfter: string | undefined): Ended {
    const end = classifyAnswer(status, performance.now() - this.startedAt, this.deadlineMs);
    return retryAfter === undefined ? end : { ...end, retryAfter };
  }

  /** Closes the socket; the next request opens another. */
  private forget(): void {
    const socket = this.socket;
    this.socket = undefined;
    socket?.destroy();
  }

  /** Ends the outstanding request as `end` and closes the socket: its answer is not wanted. */
  private giveUp(end: Ended): void {
    this.forget();
    this.settle?.(end);
  }

  /** The socket failed or closed: if it is still ours, the request on it ends as `end`. */
  private drop(socket: Socket, end: Ended): void {
    if (this.socket !== socket) return;
    this.socket = undefined;
    this.settle?.(end);
  }
}
