/**
 * The agency ERP's clerks: every second, new articles (which every shop's products pipeline
 * creates), stock changes and per-shop price changes of articles that went live at least
 * `settleMs` earlier (an update needs the product in the shop), and now and then a manufacturer.
 */
import pg from 'pg';

/** Changes per second. */
export interface WriterRates {
  readonly articles: number;
  readonly stock: number;
  readonly prices: number;
  readonly manufacturers: number;
}

/** What the writer did. */
export interface WriterTally {
  articles: number;
  stock: number;
  prices: number;
  manufacturers: number;
  /** Price changes per shop (each reaches one shop only). */
  readonly pricesByShop: Map<string, number>;
}

/** A running writer. */
export interface Writer {
  readonly tally: WriterTally;
  stop(): Promise<void>;
}

/** Start committing `rates` changes per second into the ERP schema. */
export async function startWriter(url: string, schema: string, shops: readonly string[], products: number, rates: WriterRates, settleMs = 90_000): Promise<Writer> {
  const c = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
  await c.connect();
  const tally: WriterTally = { articles: 0, stock: 0, prices: 0, manufacturers: 0, pricesByShop: new Map() };
  const live: { artnr: string; at: number }[] = [];
  let stopped = false;
  let step = 0;
  const artnr = (i: number) => `A${String(i).padStart(6, '0')}`;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;
  const settled = () => {
    const cut = Date.now() - settleMs;
    let n = 0;
    while (n < live.length && live[n]!.at <= cut) n++;
    return live.slice(0, n);
  };
  const loop = (async () => {
    const started = Date.now();
    while (!stopped) {
      step++;
      const ready = settled();
      for (let i = 0; i < rates.articles && tally.articles < products; i++) {
        const a = artnr(++tally.articles);
        await c.query('UPDATE artikel SET name = $2, geaendert = now() WHERE artnr = $1', [a, `Artikel ${a} neu`]);
        live.push({ artnr: a, at: Date.now() });
      }
      if (ready.length > 0) {
        for (let i = 0; i < rates.stock; i++) {
          await c.query('UPDATE lager SET bestand = $2, geaendert = now() WHERE artnr = $1', [pick(ready).artnr, Math.floor(Math.random() * 500)]);
          tally.stock++;
        }
        for (let i = 0; i < rates.prices; i++) {
          const shop = pick(shops);
          await c.query('UPDATE preise SET preis = preis + 0.01, geaendert = now() WHERE shop = $1 AND artnr = $2', [shop, pick(ready).artnr]);
          tally.prices++;
          tally.pricesByShop.set(shop, (tally.pricesByShop.get(shop) ?? 0) + 1);
        }
      }
      if (rates.manufacturers > 0 && step % Math.max(1, Math.round(1 / rates.manufacturers)) === 0) {
        await c.query("UPDATE hersteller SET name = 'Hersteller ' || nr || ' ' || $2, geaendert = now() WHERE nr = $1", [`H${String(1 + (step % 200)).padStart(3, '0')}`, step]);
        tally.manufacturers++;
      }
      const next = started + step * 1000;
      await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
    }
  })();
  return {
    tally,
    async stop() {
      stopped = true;
      await loop;
      await c.end();
    },
  };
}
