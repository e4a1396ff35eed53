/**
 * The network between a CLI process and the shop: an HTTP proxy in front of the sandbox, one per
 * spawned CLI, that counts the API requests passing through and acts on the n-th. So a kill or a
 * freeze is placed by the run's progress (its n-th request), not by milliseconds, and a seed
 * replays it: `kill` SIGKILLs the process while its n-th request is on its way (the shop never
 * gets it), `kill-after` once the shop has answered it (the request took effect, the answer dies
 * with the process), `hold-kill` holds the n-th request back, lets the others through, and
 * SIGKILLs the process once its checkpoint moved (or a second passed): a run that dies with an
 * early batch in flight and later ones settled; `freeze` SIGSTOPs the process when its n-th
 * request arrives (a replica frozen by its host) until `resume()`; `restart-state` holds the n-th
 * request until the state server has ended every session of the world (a PostgreSQL state
 * restarting in the middle of the run), then lets it through.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type LinkAction = 'kill' | 'kill-after' | 'hold-kill' | 'freeze' | 'restart-state';

/** What the link did. */
export interface LinkReport {
  /** API requests that arrived at the link. */
  requests: number;
  /** The action happened (the process had not ended before its n-th request). */
  acted: boolean;
}

export class ShopLink {
  private server!: Server;
  private pid: number | undefined;
  private held: (() => void)[] = [];
  readonly report: LinkReport = { requests: 0, acted: false };
  /** Resolves when the action happened. */
  readonly acted: Promise<void>;
  private markActed!: () => void;

  constructor(
    private readonly target: string,
    private readonly atRequest: number,
    private readonly action: LinkAction,
    /** Whether the process's checkpoint moved since the hold (hold-kill waits for it). */
    private readonly progressed: () => Promise<boolean>,
    /** What `restart-state` does to the state server. */
    private readonly restartState: () => Promise<unknown> = async () => undefined,
  ) {
    this.acted = new Promise((done) => (this.markActed = done));
  }

  async open(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((done) => this.server.listen(0, '127.0.0.1', done));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The process the link belongs to (known once it is spawned; requests wait for it). */
  attach(pid: number): void {
    this.pid = pid;
  }

  private signal(sig: NodeJS.Signals): void {
    if (this.pid === undefined) return;
    try {
      process.kill(this.pid, sig);
    } catch {
      // The process has already ended: nothing to signal.
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const api = !req.url?.startsWith('/sandbox/');
    const n = api ? ++this.report.requests : 0;
    const hit = api && n === this.atRequest && !this.report.acted;
    if (hit && this.action === 'kill') {
      this.act('SIGKILL');
      res.destroy();
      return;
    }
    if (hit && this.action === 'freeze') this.act('SIGSTOP');
    if (hit && this.action === 'restart-state') {
      await this.restartState();
      this.report.acted = true;
      this.markActed();
    }
    if (hit && this.action === 'hold-kill') {
      void this.holdThenKill();
      await new Promise<void>((done) => this.held.push(done));
      res.destroy();
      return;
    }
    const body: Buffer[] = [];
    for await (const chunk of req) body.push(chunk as Buffer);
    const upstream = new URL(req.url ?? '/', this.target);
    const answer = await new Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer } | undefined>((done) => {
      const out = httpRequest(upstream, { method: req.method, headers: { ...req.headers, host: upstream.host } }, (r) => {
        const parts: Buffer[] = [];
        r.on('data', (c: Buffer) => parts.push(c));
        r.on('end', () => done({ status: r.statusCode ?? 502, headers: r.headers, body: Buffer.concat(parts) }));
        r.on('error', () => done(undefined));
      });
      out.on('error', () => done(undefined));
      out.end(Buffer.concat(body));
    });
    if (hit && this.action === 'kill-after') {
      this.act('SIGKILL');
      res.destroy();
      return;
    }
    if (!answer) {
      // The sandbox dropped the connection (a reset fault): the client sees the same.
      res.destroy();
      return;
    }
    const { 'transfer-encoding': _chunked, connection: _connection, ...headers } = answer.headers;
    res.writeHead(answer.status, { ...headers, 'content-length': String(answer.body.length) });
    res.end(answer.body);
  }

  private act(sig: NodeJS.Signals): void {
    this.report.acted = true;
    this.signal(sig);
    this.markActed();
  }

  private async holdThenKill(): Promise<void> {
    this.report.acted = true;
    const started = performance.now();
    while (performance.now() - started < 1000 && !(await this.progressed())) await new Promise((r) => setTimeout(r, 5));
    this.signal('SIGKILL');
    this.markActed();
  }

  /** SIGCONT a frozen process. */
  resume(): void {
    this.signal('SIGCONT');
  }

  async close(): Promise<void> {
    this.resume();
    for (const release of this.held.splice(0)) release();
    this.server.closeAllConnections();
    await new Promise<void>((done) => this.server.close(() => done()));
  }
}
