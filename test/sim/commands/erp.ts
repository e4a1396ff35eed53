/**
 * What happens in the ERP: products written, changed and deleted; rows that a long transaction
 * stamped when it began and commits later; a writer whose clock runs behind; bad rows; the
 * clock moving on. Every row is stamped on the simulated clock (`updated_at`, TEXT): the engine's
 * cursor and lookback compare those stamps only, so ERP time moves with the history.
 */
import { CATALOG, skuOf, stampOf, type Model } from '../model.js';
import type { Outcome, Sim } from '../sim.js';
import { SimCommand } from './base.js';

const world = (note?: string): Outcome => ({ kind: 'world', ...(note ? { note } : {}) });

/** A new product. */
export class InsertProduct extends SimCommand {
  readonly name = 'InsertProduct';
  constructor(readonly n: number, readonly price: string, readonly qty: number) {
    super({ n, price, qty });
  }
  override check(m: Readonly<Model>): boolean {
    return !m.products.has(skuOf(this.n)) && !m.locked(skuOf(this.n));
  }
  protected async act(m: Model, sim: Sim): Promise<Outcome> {
    const row = { sku: skuOf(this.n), name: `Artikel ${this.n}`, price: this.price, qty: String(this.qty), stamp: m.now };
    sim.writeRow(row);
    m.commit(row);
    return world();
  }
}

/** An ERP batch job writes a block of products at once (new ones, or a price list for existing ones): runs get several batches. */
export class BulkWrite extends SimCommand {
  readonly name = 'BulkWrite';
  constructor(readonly from: number, readonly count: number, readonly cents: number) {
    super({ from, count, cents });
  }
  protected async act(m: Model, sim: Sim): Promise<Outcome> {
    let written = 0;
    for (let i = this.from; i < this.from + this.count; i++) {
      const sku = skuOf(i % CATALOG);
      if (m.locked(sku)) continue;
      const old = m.products.get(sku);
      const row = { sku, name: old?.name ?? `Artikel ${i % CATALOG}`, price: (10 + ((i * this.cents) % 900) / 10).toFixed(2), qty: old?.qty ?? String(i % 7), stamp: m.now };
      sim.writeRow(row);
      m.commit(row);
      written++;
    }
    return world(`${written} rows`);
  }
}

/** One field of a product changes (price, stock or name). */
export class UpdateProduct extends SimCommand {
  readonly name = 'UpdateProduct';
  constructor(readonly n: number, readonly field: 'price' | 'qty' | 'name', readonly value: string) {
    super({ n, field, value });
  }
  override check(m: Readonly<Model>): boolean {
    return m.products.has(skuOf(this.n)) && !m.locked(skuOf(this.n));
  }
  protected async act(m: Model, sim: Sim): Promise<Outcome> {
    const old = m.products.get(skuOf(this.n))!;
    const row = { ...old, [this.field]: this.value, stamp: m.now };
    sim.writeRow(row);
    m.commit(row);
    return world();
  }
}

/** A product leaves the ERP (onMissing is `ignore`: the shop keeps its copy, which is no longer checked). */
export class DeleteProduct extends SimCommand {
  readonly name = 'DeleteProduct';
  constructor(readonly n: number) {
    super({ n });
  }
  override check(m: Readonly<Model>): boolean {
    return m.products.has(skuOf(this.n)) && !m.locked(skuOf(this.n));
  }
  protected async act(m: Model, sim: Sim): Promise<Outcome> {
    sim.deleteRow(skuOf(this.n));
    m.delete(skuOf(this.n));
    return world();
  }
}

/** A row the pipeline cannot take: a price that is no number (the mapping refuses it), or no key at all (the source refuses it). */
export class BadRow extends SimCommand {
  readonly name = 'BadRow';
  constructor(readonly n: number, readonly kind: 'price-text' | 'no-key') {
    super({ n, kind });
  }
  override check(m: Readonly<Model>): boolean {
    return this.kind === 'no-key' || !m.locked(skuOf(this.n));
  }
  protected async act(m: Model, sim: Sim): Promise<Outcome> {
    m.coverage.badRows++;
    if (this.kind === 'no-key') {
      // Two keyless rows in one step would share a letter: the ERP's clock moves a second per extra row.
      while (m.keyless.includes(m.now)) m.clockMs += 1000;
      sim.writeRow({ sku: null, name: 'ohne Nummer', price: '1.00', qty: '1', stamp: m.now });
      m.keyless.push(m.now);
      return world();
    }
    const old = m.products.get(skuOf(this.n));
    const row = { sku: skuOf(this.n), name: old?.name ?? `Artikel ${this.n}`, price: 'zwölf', qty: old?.qty ?? '1', stamp: m.now };
    sim.writeRow(row);
    m.commit(row);
    return world();
  }
}

/**
 * A clerk's long transaction writes a product now, stamped now, and commits later (CommitLate,
 * or by itself before the lookback runs out). On SQLite the reader sees nothing until the commit;
 * what it then sees is a row stamped in the past, as a late commit on any database looks.
 */
export class BeginLongTransaction extends SimCommand {
  readonly name = 'BeginLongTransaction';
  constructor(readonly n: number, readonly price: string) {
    super({ n, price });
  }
  override check(m: Readonly<Model>): boolean {
    return !m.locked(skuOf(this.n));
  }
  protected async act(m: Model): Promise<Outcome> {
    const old = m.products.get(skuOf(this.n));
    const tx = m.begin({ sku: skuOf(this.n), name: old?.name ?? `Artikel ${this.n}`, price: this.price, qty: old?.qty ?? '5', stamp: m.now });
    return world(`tx ${tx.id} open`);
  }
}

/** The oldest open transaction commits. */
export class CommitLate extends SimCommand {
  readonly name = 'CommitLate';
  override check(m: Readonly<Model>): boolean {
    return m.open.length > 0;
  }
  protected async act(m: Model, sim: Sim): Promise<Outcome> {
    const tx = m.open[0];
    // The step's start may have committed it already: it had been open too long for the lookback.
    if (!tx) return world('nothing left open');
    sim.writeRow(tx.row);
    m.finish(tx);
    return world(`tx ${tx.id} (${tx.row.sku}, stamped ${tx.row.stamp}) commits`);
  }
}

/** An application server whose clock runs 90 s behind writes a product. */
export class SkewedWrite extends SimCommand {
  readonly name = 'SkewedWrite';
  constructor(readonly n: number, readonly price: string) {
    super({ n, price });
  }
  override check(m: Readonly<Model>): boolean {
    return !m.locked(skuOf(this.n));
  }
  protected async act(m: Model, sim: Sim): Promise<Outcome> {
    const old = m.products.get(skuOf(this.n));
    const row = { sku: skuOf(this.n), name: old?.name ?? `Artikel ${this.n}`, price: this.price, qty: old?.qty ?? '3', stamp: stampOf(m.clockMs - 90_000) };
    sim.writeRow(row);
    m.commit(row);
    m.coverage.skewedWrites++;
    return world();
  }
}

/** Time passes in the ERP (minutes, so rows fall out of the lookback window). */
export class Tick extends SimCommand {
  readonly name = 'Tick';
  constructor(readonly minutes: number) {
    super({ minutes });
  }
  protected async act(m: Model): Promise<Outcome> {
    m.clockMs += this.minutes * 60_000;
    return world(`ERP clock ${m.now}`);
  }
}

/** The two file names the ERP delivers, each with SKUs of its own (so the order between them never matters). */
export const FILE_RANGES: Readonly<Record<string, number>> = { 'artikel.csv': 0, 'preise.csv': 20 };

/**
 * The ERP drops a finished CSV of `count` articles into the inbox under a name it used before
 * (each delivery must be read from its first row); `bad` puts a price the mapping refuses in its
 * first row. A delivery under a name still waiting in the inbox replaces it, as a file system does.
 */
export class DropFile extends SimCommand {
  readonly name = 'DropFile';
  constructor(readonly file: string, readonly count: number, readonly cents: number, readonly bad: boolean) {
    super({ file, count, cents, bad });
  }
  protected async act(m: Model, sim: Sim): Promise<Outcome> {
    const base = FILE_RANGES[this.file] ?? 0;
    const rows = Array.from({ length: this.count }, (_, i) => ({
      sku: `F-${String(base + i).padStart(3, '0')}`,
      name: `Datei ${base + i}`,
      price: this.bad && i === 0 ? 'zwölf' : (1 + ((i * this.cents) % 500) / 10).toFixed(2),
      qty: String((i + this.cents) % 13),
      stamp: m.now,
    }));
    const replaced = sim.world.dropFile(this.file, rows);
    for (const r of rows) m.everSku.add(r.sku);
    m.dropped.set(this.file, rows);
    m.coverage.fileDrops++;
    if (m.pickedUp.has(this.file)) m.coverage.redeliveries++;
    if (this.bad) m.coverage.badRows++;
    return world(replaced ? 'replaces a delivery not yet picked up' : undefined);
  }
}

/**
 * The ERP books a shop order some steps after the shop took it (issue 43): its import takes the
 * `pick`-th of the orders the pull delivered into the import table and the ERP has not booked, and
 * in one transaction lowers the stock of each line's article it holds (the row's stamp moves, so
 * the next stock run reads it) and writes the booking row the pipeline's `booked.query` reads.
 * An order the import table refused (a dead letter) never reaches the ERP and stays unbooked.
 */
export class ErpBooks extends SimCommand {
  readonly name = 'ErpBooks';
  constructor(readonly pick: number) {
    super({ pick });
  }
  override check(m: Readonly<Model>): boolean {
    return [...m.reservations.values()].some((r) => !r.booked);
  }
  protected async act(m: Model, sim: Sim): Promise<Outcome> {
    const imported = new Set((sim.world.erp.prepare('SELECT orders_id AS id FROM shop_orders').all() as { id: number }[]).map((r) => r.id));
    // A cancelled order is not booked (issue 44): the shop's cancellation reaches the ERP, which drops the order.
    const candidates = [...m.reservations.values()].filter((r) => !r.booked && !r.cancelled && imported.has(r.ordersId));
    if (candidates.length === 0) return world('no delivered order to book');
    const order = candidates[this.pick % candidates.length]!;
    // A clerk's open transaction holds the row: the booking waits for it (it runs again in a later step).
    if (order.lines.some((l) => m.locked(l.sku))) return world(`order ${order.ordersId} waits for an open transaction`);
    const rows = order.lines.flatMap((l) => {
      const old = m.products.get(l.sku);
      return old ? [{ ...old, qty: String(Number(old.qty) - l.qty), stamp: m.now }] : [];
    });
    const write = sim.world.erp.transaction(() => {
      for (const row of rows) sim.writeRow(row);
      sim.world.erp.prepare('INSERT INTO erp_bookings (orders_id, booked_at) VALUES (?, ?)').run(order.ordersId, m.now);
    });
    write();
    for (const row of rows) m.commit(row);
    order.booked = true;
    m.coverage.erpBookings++;
    return world(`order ${order.ordersId} booked: ${rows.map((r) => `${r.sku} ${r.qty}`).join(', ') || 'no article the ERP holds'}`);
  }
}
