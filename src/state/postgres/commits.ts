/**
 * The line writes commit in. Writes commit in the order they were made (a checkpoint written after
 * a batch's records must never land before the records), so they wait for one another; writes
 * that queued up while one was committing are folded into one commit (group commit): with eight
 * batches in flight, a settle no longer waits for each of the others' round trips in turn.
 *
 * A group commits all or nothing, a superset of each write's own atomicity, in the order the
 * writes were made. When the server refuses a group (a statement error, so the group surely
 * rolled back), its writes are committed again one by one, so only the write at fault fails, as
 * if they had never been grouped. When the connection fails, the outcome is unknown and the whole
 * group fails: a write is never sent twice.
 */
import type pg from 'pg';
import { execute, transaction } from './db.js';
import type { Statistics } from './statistics.js';
import { PgWriter } from './writer.js';

/** Writes folded into one commit at most (a bound on one statement's size). */
const MAX_GROUP = 32;

interface Waiting {
  readonly writer: PgWriter;
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
}

/** SQLSTATE classes of a lost connection or a server going away: the outcome of the commit is unknown. */
const UNKNOWN_OUTCOME = /^(08|57P|53)/;

function surelyRolledBack(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !UNKNOWN_OUTCOME.test(code);
}

/** The commit line of one state (every shop's view shares it). */
export class CommitLine {
  private readonly queue: Waiting[] = [];
  private draining = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly statistics: Statistics,
  ) {}

  /** Commit a write after every write queued before it; resolves once it is committed. */
  commit(writer: PgWriter): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ writer, resolve, reject });
      if (!this.draining) {
        this.draining = true;
        void this.drain();
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const group = this.queue.splice(0, MAX_GROUP);
      try {
        await this.send(group.map((w) => w.writer));
        for (const w of group) w.resolve();
      } catch (err) {
        if (group.length === 1 || !surelyRolledBack(err)) {
          for (const w of group) w.reject(err);
          continue;
        }
        for (const w of group) {
          try {
            await this.send([w.writer]);
            w.resolve();
          } catch (own) {
            w.reject(own);
          }
        }
      }
    }
    // Cleared in the same turn as the last look at the queue: a write queued after it starts a new drain.
    this.draining = false;
  }

  private async send(writers: readonly PgWriter[]): Promise<void> {
    const { statements, upserted } = PgWriter.statementsOf(writers);
    if (statements.length === 1) await execute(this.pool, statements[0]!.text, statements[0]!.values);
    else {
      await transaction(this.pool, async (client) => {
        for (const st of statements) await execute(client, st.text, st.values);
      });
    }
    this.statistics.wrote(upserted);
  }
}
