/**
 * The demo ERP's sales side: customers (Kundennummer, address, group, discounts), phone and
 * marketplace orders with lines (pushed to the shop with an external reference), status and
 * tracking updates for shop orders, and service contracts.
 */
import { demoArticles, type ErpRow } from './catalog.js';
import { addDays, createRandom, deDate, deDecimal } from './random.js';

const VORNAMEN = ['Anna', 'Jonas', 'Lena', 'Lukas', 'Marie', 'Felix', 'Sophie', 'Paul', 'Emma', 'Leon', 'Mia', 'Finn', 'Hannah', 'Elias', 'Clara', 'Jürgen'];
const NACHNAMEN = ['Müller', 'Schmidt', 'Schneider', 'Fischer', 'Weber', 'Meyer', 'Wagner', 'Becker', 'Schulz', 'Hoffmann', 'Koch', 'Richter', 'Klein', 'Wolf', 'Schröder', 'Neumann'];
const ORTE: readonly [string, string, string][] = [
  ['10115', 'Berlin', 'DE'], ['20095', 'Hamburg', 'DE'], ['80331', 'München', 'DE'], ['50667', 'Köln', 'DE'], ['60311', 'Frankfurt am Main', 'DE'],
  ['70173', 'Stuttgart', 'DE'], ['01067', 'Dresden', 'DE'], ['1010', 'Wien', 'AT'], ['8001', 'Zürich', 'CH'], ['04109', 'Leipzig', 'DE'],
];
const STRASSEN = ['Hauptstraße', 'Bahnhofstraße', 'Gartenweg', 'Schillerstraße', 'Lindenallee', 'Am Markt', 'Kirchgasse', 'Mühlenweg'];

/** Customers (Kunden): KDNR, names, address, Kundengruppe (EK end customer, HAE merchant, EXP export). */
export function demoCustomers(): ErpRow[] {
  const rnd = createRandom(2002);
  const rows: ErpRow[] = [];
  for (let i = 0; i < 40; i++) {
    const vorname = rnd.pick(VORNAMEN);
    const nachname = rnd.pick(NACHNAMEN);
    const [plz, ort, land] = rnd.pick(ORTE);
    const gruppe = land === 'CH' ? 'EXP' : i % 5 === 0 ? 'HAE' : 'EK';
    const mail = `${vorname}.${nachname}.${i + 1}`.toLowerCase().replace(/ä/g, 'ae').replace(/ö/g, 'oe').replace(/ü/g, 'ue').replace(/ß/g, 'ss');
    rows.push({
      KDNR: `K${String(10001 + i)}`,
      Anrede: rnd.pick(['Herr', 'Frau', '']),
      Vorname: vorname,
      Nachname: nachname,
      Firma: gruppe === 'HAE' ? `${nachname} Handels GmbH` : '',
      Strasse: `${rnd.pick(STRASSEN)} ${rnd.int(1, 120)}`,
      PLZ: plz,
      Ort: ort,
      Land: land,
      Email: `${mail}@example.com`,
      Telefon: `+49 ${rnd.int(30, 899)} ${rnd.int(100000, 9999999)}`,
      Kundengruppe: gruppe,
      Geaendert: `2026-11-${String(1 + (i % 20)).padStart(2, '0')} 10:${String(i % 60).padStart(2, '0')}:00`,
    });
  }
  return rows;
}

/** Customer discounts per category (Rabatt in percent with decimal comma); merchants have some. */
export function demoCustomerDiscounts(): ErpRow[] {
  return demoCustomers()
    .filter((c) => c.Kundengruppe === 'HAE')
    .flatMap((c, n) => [
      { KDNR: c.KDNR, WGR: 'WG-100', Rabatt: deDecimal(5 + n, 1), Untergruppen: 'J' },
      ...(n % 2 === 0 ? [{ KDNR: c.KDNR, WGR: 'WG-210', Rabatt: '2,5', Untergruppen: 'N' }] : []),
    ]);
}

/** Phone and marketplace orders (Aufträge) to push into the shop, net prices, with their source and external number. */
export function demoOrders(): ErpRow[] {
  const rnd = createRandom(3003);
  const customers = demoCustomers();
  const rows: ErpRow[] = [];
  for (let i = 0; i < 24; i++) {
    const c = customers[(i * 7) % customers.length];
    const quelle = i % 3 === 0 ? 'AMAZON' : i % 3 === 1 ? 'TELEFON' : 'EBAY';
    const datum = addDays('2026-11-01', i);
    rows.push({
      BelegNr: `AB-2026-${String(5001 + i)}`,
      KDNR: c.KDNR,
      Belegdatum: `${deDate(datum)} ${String(9 + (i % 8)).padStart(2, '0')}:${String((i * 11) % 60).padStart(2, '0')}`,
      Quelle: quelle,
      Externe_Nr: quelle === 'TELEFON' ? `TEL-${String(700 + i)}` : quelle === 'AMAZON' ? `302-${String(1000000 + i * 7919).slice(0, 7)}-${String(4400000 + i * 131)}` : `EB-${String(220000 + i * 17)}`,
      Zahlungsart: quelle === 'TELEFON' ? rnd.pick(['Rechnung', 'Vorkasse']) : 'Marktplatz',
      Versandart: rnd.pick(['DHL', 'DPD', 'Hermes']),
      Vorname: c.Vorname,
      Nachname: c.Nachname,
      Firma: c.Firma,
      Strasse: c.Strasse,
      PLZ: c.PLZ,
      Ort: c.Ort,
      Land: c.Land,
      Email: c.Email,
      Waehrung: 'EUR',
      Geaendert: `${datum} 18:00:00`,
    });
  }
  return rows;
}

/** Order lines (Positionen): article number, quantity and net unit price with decimal comma. */
export function demoOrderLines(): ErpRow[] {
  const rnd = createRandom(4004);
  const articles = demoArticles().slice(0, 50);
  return demoOrders().flatMap((o) => {
    const n = rnd.int(1, 4);
    return Array.from({ length: n }, (_, p) => {
      const a = articles[rnd.int(0, articles.length - 1)];
      return { BelegNr: o.BelegNr, Pos: String((p + 1) * 10), ARTNR: a.ARTNR, Bezeichnung: a.Bezeichnung, Menge: deDecimal(rnd.int(1, 3), 3), Einzelpreis_Netto: a.VK_Netto };
    });
  });
}

/** Status and tracking updates for shop orders (the ERP knows the shop's order number). */
export function demoOrderStatus(): ErpRow[] {
  const rows: ErpRow[] = [];
  for (let i = 0; i < 15; i++) {
    const status = i % 5 === 4 ? 'STORNIERT' : i % 3 === 0 ? 'IN_ARBEIT' : 'VERSANDT';
    const datum = addDays('2026-11-10', i);
    rows.push({
      Vorgang: `ST-${String(9001 + i)}`,
      ShopBestellNr: String(1 + i),
      Status: status,
      Kommentar: status === 'VERSANDT' ? 'Ihre Bestellung ist unterwegs.' : status === 'STORNIERT' ? 'Storniert auf Kundenwunsch.' : 'In Bearbeitung im Lager.',
      Kunde_benachrichtigen: status === 'IN_ARBEIT' ? 'N' : 'J',
      Datum: `${deDate(datum)} 15:30:00`,
      Versender: status === 'VERSANDT' ? (i % 2 === 0 ? 'DHL' : 'DPD') : '',
      Sendungsnummer: status === 'VERSANDT' ? `00340434${String(161094 + i * 1013).padStart(10, '0')}` : '',
      Geaendert: `${datum} 15:30:00`,
    });
  }
  return rows;
}

/** Service contracts (Verträge): customer, article, monthly/quarterly/yearly billing, net amount. */
export function demoContracts(): ErpRow[] {
  const customers = demoCustomers();
  const articles = demoArticles();
  const intervals = ['MONATLICH', 'QUARTAL', 'JAEHRLICH', 'HALBJAEHRLICH'];
  return Array.from({ length: 10 }, (_, i) => {
    const start = addDays('2026-01-01', i * 30);
    return {
      VertragsNr: `V-${String(301 + i)}`,
      KDNR: customers[i * 3].KDNR,
      ARTNR: articles[i * 4].ARTNR,
      Status: i === 7 ? 'GEKUENDIGT' : i === 5 ? 'PAUSIERT' : 'AKTIV',
      Intervall: intervals[i % intervals.length],
      Betrag_Netto: deDecimal(9.9 + i * 5),
      Beginn: deDate(start),
      Ende: i === 7 ? deDate(addDays(start, 365)) : '',
      Geaendert: `${start} 12:00:00`,
    };
  });
}
