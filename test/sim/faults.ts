/**
 * Infrastructure faults of the in-process runtime, placed by the history: the ERP's connection
 * (source reads, sink writes, the sink's COMMIT) and the state's writes fail from the n-th
 * statement on, counted from the moment the fault is armed, never by real time, so a seed replays
 * every failure exactly.
 *
 * What is real and what is injected: the statements are the real ones the real connectors and
 * the real state run on the real SQLite files; the failure is injected at the driver boundary.
 * Statement#run/all/get/iterate of better-sqlite3 is wrapped once per process, and a statement
 * of a connection to the world's ERP file or state file (not the simulation's own connection)
 * throws the library's own `SqliteError` with the code the real fault gives (SQLITE_BUSY for a
 * connection another process holds, SQLITE_IOERR for a lost disk, SQLITE_FULL for a full one)
 * instead of executing. A faulted COMMIT leaves the transaction open, which the connector rolls
 * back, exactly as after a real failed commit. `lost-ack` alone is not a SQLite failure: the
 * COMMIT takes effect and the error comes after it, as a network ERP (PostgreSQL, MariaDB) loses
 * the answer to a commit that happened.
 */
import { resolve } from 'node:path';
import Database from 'better-sqlite3';

/** Which statements a fault hits. */
export type FaultTarget = 'erp-read' | 'erp-write' | 'erp-commit' | 'state-write';
/** What the failing statement throws. */
export type FaultError = 'busy' | 'ioerr' | 'full' | 'lost-ack';

/** A fault armed by a history command. */
export interface ArmedFault {
  readonly target: FaultTarget;
  readonly error: FaultError;
  /** Statements of the target that still go through before the first failure. */
  readonly after: number;
  /** How many statements in a row fail once it started (a full disk stays full). */
  readonly lasting: number;
}

const MESSAGES: Readonly<Record<Exclude<FaultError, 'lost-ack'>, [string, string]>> = {
  busy: ['database is locked', 'SQLITE_BUSY'],
  ioerr: ['disk I/O error', 'SQLITE_IOERR'],
  full: ['database or disk is full', 'SQLITE_FULL'],
};

interface Live extends ArmedFault {
  seen: number;
  fired: number;
}

const WRITE = /^\s*(INSERT|UPDATE|DELETE|REPLACE|BEGIN|SAVEPOINT|RELEASE)\b/i;
const READ = /^\s*(SELECT|WITH)\b/i;
const COMMIT = /^\s*(COMMIT|END)\b/i;

/** The faults of one world: which files are the ERP and the state, which connections are the simulation's own, what is armed. */
export class InfraFaults {
  private armed: Live[] = [];
  /** Statements that failed, per target, since the world began (coverage and the step's note). */
  readonly fired: Record<FaultTarget, number> = { 'erp-read': 0, 'erp-write': 0, 'erp-commit': 0, 'state-write': 0 };
  /** A COMMIT that took effect although the connector was told it failed, since the counter was read last. */
  lostAcks = 0;

  constructor(
    readonly erpFile: string,
    readonly stateFile: string | undefined,
    private readonly own: ReadonlySet<Database.Database>,
  ) {}

  arm(f: ArmedFault): void {
    this.armed.push({ ...f, seen: 0, fired: 0 });
  }

  /** Lift every fault (quiescence: the disk has room again, the ERP is back). */
  clear(): void {
    this.armed = [];
  }

  /** Statements failed so far, every target together. */
  get firedTotal(): number {
    return Object.values(this.fired).reduce((a, b) => a + b, 0);
  }

  /** Whether a fault is armed and not used up. */
  get active(): boolean {
    return this.armed.some((f) => f.fired < f.lasting);
  }

  /** Called for every statement of every connection of this process; returns what to do with it. */
  decide(db: Database.Database, sql: string): { fail?: Error; after?: Error } {
    if (this.armed.length === 0 || this.own.has(db)) return {};
    const target = this.targetOf(db, sql);
    if (!target) return {};
    for (const f of this.armed) {
      if (f.target !== target || f.fired >= f.lasting) continue;
      f.seen++;
      if (f.seen <= f.after) continue;
      f.fired++;
      this.fired[target]++;
      if (f.error === 'lost-ack') {
        this.lostAcks++;
        return { after: new Database.SqliteError('the connection was lost before the commit was acknowledged (disk I/O error)', 'SQLITE_IOERR') };
      }
      const [message, code] = MESSAGES[f.error];
      return { fail: new Database.SqliteError(message, code) };
    }
    return {};
  }

  private readonly files = new WeakMap<Database.Database, string>();

  private targetOf(db: Database.Database, sql: string): FaultTarget | undefined {
    let file = this.files.get(db);
    if (file === undefined) this.files.set(db, (file = db.memory ? '' : resolve(db.name)));
    if (file === this.erpFile) {
      if (COMMIT.test(sql)) return 'erp-commit';
      if (READ.test(sql)) return 'erp-read';
      if (WRITE.test(sql)) return 'erp-write';
      return undefined;
    }
    if (this.stateFile !== undefined && file === this.stateFile && (WRITE.test(sql) || COMMIT.test(sql))) return 'state-write';
    return undefined;
  }
}

let current: InfraFaults | undefined;

/** The faults of the world now open (one history at a time per process). */
export function useFaults(faults: InfraFaults | undefined): void {
  current = faults;
  install();
}

let installed = false;

/** Wrap better-sqlite3's statement methods once: every statement asks the current world's faults first. */
function install(): void {
  if (installed) return;
  installed = true;
  const probe = new Database(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<string, (...args: unknown[]) => unknown>;
  probe.close();
  for (const method of ['run', 'all', 'get', 'iterate'] as const) {
    const original = proto[method]!;
    proto[method] = function (this: Database.Statement, ...args: unknown[]) {
      const decision = current?.decide(this.database, this.source) ?? {};
      if (decision.fail) throw decision.fail;
      const out = original.apply(this, args);
      if (decision.after) throw decision.after;
      return out;
    };
  }
  // The state's transactions (`state.write`) BEGIN and COMMIT inside better-sqlite3's native
  // `transaction()`, not through statements; their INSERTs and UPDATEs are statements, so a failing
  // one rolls the transaction back, as a real SQLITE_FULL in the middle of it does.
}
