/**
 * The demo ERP's article master, as a German ERP exports it: article numbers (ARTNR), EAN,
 * names, net prices with decimal commas (VK_Netto), price tiers per customer group, specials,
 * manufacturer numbers, category codes, supplier numbers, and stock per warehouse (Lager 1, 2).
 * Article numbers DEMO-1001..1050 match the sandbox's demo shop; the rest are new articles.
 */
import { addDays, createRandom, deDate, deDecimal, ean13 } from './random.js';

/** One ERP row: every value a string, exactly as the export file holds it. */
export type ErpRow = Record<string, string>;

const CHANGED = '2026-11-20';

/** [code, parent code, German name, English name, active, level]. */
const WARENGRUPPEN: readonly [string, string, string, string, string, string][] = [
  ['WG-100', '', 'Elektronik', 'Electronics', 'J', '1'],
  ['WG-200', '', 'Haus & Garten', 'Home & garden', 'J', '1'],
  ['WG-300', '', 'Bücher', 'Books', 'J', '1'],
  ['WG-900', '', 'Restposten', 'Outlet', 'N', '1'],
  ['WG-110', 'WG-100', 'Audio', 'Audio', 'J', '2'],
  ['WG-120', 'WG-100', 'Kabel & Adapter', 'Cables & adapters', 'J', '2'],
  ['WG-210', 'WG-200', 'Küche', 'Kitchen', 'J', '2'],
  ['WG-220', 'WG-200', 'Werkzeug', 'Tools', 'J', '2'],
  ['WG-230', 'WG-200', 'Gartenbedarf', 'Garden supplies', 'J', '2'],
];

/** [number, name, street, postcode, city, country, EU member]. */
const HERSTELLER: readonly [string, string, string, string, string, string, string][] = [
  ['H-001', 'Nordwerk', 'Werftstraße 3', '24143', 'Kiel', 'DE', 'J'],
  ['H-002', 'Klangfabrik', 'Tonweg 12', '04109', 'Leipzig', 'DE', 'J'],
  ['H-003', 'Pacific Audio Inc.', '400 Harbor Dr', '92101', 'San Diego', 'US', 'N'],
  ['H-004', 'Gartenfreund', 'Lindengasse 8', '1070', 'Wien', 'AT', 'J'],
  ['H-005', 'Leseratte Verlag', 'Buchallee 1', '80331', 'München', 'DE', 'J'],
  ['H-006', 'Fjord Tools AS', 'Bryggen 2', '5003', 'Bergen', 'NO', 'N'],
];

/** [category code, manufacturer, supplier, German name, English name, net price]. */
const ARTIKEL: readonly [string, string, string, string, string, number][] = [
  ['WG-110', 'H-002', 'L-02', 'Studiokopfhörer', 'Studio headphones', 89.9], ['WG-110', 'H-002', 'L-02', 'Bluetooth-Lautsprecher', 'Bluetooth speaker', 49.5],
  ['WG-110', 'H-003', 'L-02', 'Plattenspieler', 'Turntable', 219], ['WG-110', 'H-003', 'L-02', 'In-Ear-Monitore', 'In-ear monitors', 129],
  ['WG-110', 'H-002', 'L-02', 'Tischmikrofon', 'Desk microphone', 64.9], ['WG-110', 'H-003', 'L-02', 'Soundbar', 'Soundbar', 179],
  ['WG-110', 'H-002', 'L-02', 'Kopfhörerständer', 'Headphone stand', 19.9], ['WG-110', 'H-002', 'L-02', 'Audio-Interface', 'Audio interface', 139],
  ['WG-120', 'H-001', 'L-02', 'HDMI-Kabel 2 m', 'HDMI cable 2 m', 9.9], ['WG-120', 'H-001', 'L-02', 'USB-C-Kabel 1 m', 'USB-C cable 1 m', 7.5],
  ['WG-120', 'H-001', 'L-02', 'Steckdosenleiste 6-fach', 'Power strip 6-way', 18.9], ['WG-120', 'H-001', 'L-02', 'Reiseadapter', 'Travel adapter', 14.5],
  ['WG-120', 'H-001', 'L-02', 'Audiokabel 3,5 mm', 'Audio cable 3.5 mm', 5.9], ['WG-120', 'H-001', 'L-02', 'Netzwerkkabel 5 m', 'Network cable 5 m', 8.4],
  ['WG-210', 'H-001', 'L-01', 'Kochmesser', 'Chef knife', 59], ['WG-210', 'H-001', 'L-01', 'Gusseisenpfanne', 'Cast iron pan', 74.9],
  ['WG-210', 'H-004', 'L-01', 'Kräutertopf', 'Herb planter', 24.9], ['WG-210', 'H-001', 'L-01', 'Espressotassen (4er-Set)', 'Espresso cups (set of 4)', 29.9],
  ['WG-210', 'H-001', 'L-01', 'Bio-Kaffeebohnen 1 kg', 'Organic coffee beans 1 kg', 18.5], ['WG-210', 'H-001', 'L-01', 'Grüner Tee 250 g', 'Green tea 250 g', 8.9],
  ['WG-210', 'H-001', 'L-01', 'Küchenwaage', 'Kitchen scale', 22.5], ['WG-210', 'H-001', 'L-01', 'Schneidebrett Eiche', 'Cutting board oak', 34],
  ['WG-210', 'H-001', 'L-01', 'Olivenöl 750 ml', 'Olive oil 750 ml', 12.9], ['WG-220', 'H-001', 'L-03', 'Akkuschrauber', 'Cordless drill', 99],
  ['WG-220', 'H-001', 'L-03', 'Schraubendreher-Set', 'Screwdriver set', 27.9], ['WG-220', 'H-004', 'L-03', 'Gartenschere', 'Garden shears', 21.5],
  ['WG-220', 'H-001', 'L-03', 'Wasserwaage 60 cm', 'Spirit level 60 cm', 16.9], ['WG-220', 'H-001', 'L-03', 'Maßband 5 m', 'Tape measure 5 m', 9.5],
  ['WG-220', 'H-004', 'L-03', 'Gießkanne 10 l', 'Watering can 10 l', 17.9], ['WG-220', 'H-001', 'L-03', 'Arbeitshandschuhe', 'Work gloves', 6.9],
  ['WG-220', 'H-001', 'L-03', 'Werkzeugkasten', 'Toolbox', 39.9], ['WG-220', 'H-004', 'L-03', 'Gartenschlauch 20 m', 'Garden hose 20 m', 32.9],
  ['WG-300', 'H-005', 'L-01', 'Kochbuch: Alpenküche', 'Cookbook: Alpine kitchen', 24], ['WG-300', 'H-005', 'L-01', 'Vogelführer', 'Field guide to birds', 19.8],
  ['WG-300', 'H-005', 'L-01', 'Grundkurs Holzarbeiten', 'Woodworking basics', 29.8], ['WG-300', 'H-005', 'L-01', 'Gartenkalender', 'Garden calendar', 12],
  ['WG-300', 'H-005', 'L-01', 'Kaffeeatlas', 'Coffee atlas', 34], ['WG-300', 'H-005', 'L-01', 'Geschichte des Hi-Fi', 'Hi-fi history', 27.5],
  ['WG-110', 'H-003', 'L-02', 'Kofferradio', 'Portable radio', 44.9], ['WG-110', 'H-002', 'L-02', 'Schallplatten-Reinigungsset', 'Vinyl cleaning kit', 15.9],
  ['WG-120', 'H-001', 'L-02', 'Optisches Kabel 1,5 m', 'Optical cable 1.5 m', 11.9], ['WG-210', 'H-001', 'L-01', 'French Press', 'French press', 27.5],
  ['WG-210', 'H-001', 'L-01', 'Brotmesser', 'Bread knife', 39], ['WG-220', 'H-004', 'L-03', 'Rechen', 'Rake', 18.5],
  ['WG-220', 'H-001', 'L-03', 'Hammer 500 g', 'Hammer 500 g', 14.9], ['WG-900', 'H-002', 'L-02', 'Kopfhörer (B-Ware)', 'Headphones (B-stock)', 45],
  ['WG-900', 'H-001', 'L-01', 'Pfannenset (Ausstellungsstück)', 'Pan set (display item)', 59], ['WG-900', 'H-004', 'L-03', 'Gartenstuhl (Retoure)', 'Garden chair (returned)', 39],
  ['WG-110', 'H-002', 'L-02', 'Kopfhörerverstärker', 'Headphone amplifier', 149], ['WG-210', 'H-001', 'L-01', 'Honig 500 g', 'Honey 500 g', 7.9],
];

/** New articles (not yet in the shop), generated from stems. */
const NEU: readonly [string, string, string, string, string, number][] = [
  ['WG-230', 'H-004', 'L-03', 'Hochbeet', 'Raised bed', 129], ['WG-230', 'H-004', 'L-03', 'Pflanzkübel', 'Planter', 34.5],
  ['WG-230', 'H-006', 'L-03', 'Spaten', 'Spade', 42], ['WG-230', 'H-006', 'L-03', 'Astschere', 'Lopper', 58.9],
  ['WG-230', 'H-004', 'L-03', 'Rasensamen 1 kg', 'Lawn seed 1 kg', 12.5], ['WG-220', 'H-006', 'L-03', 'Handsäge', 'Hand saw', 24.9],
  ['WG-220', 'H-006', 'L-03', 'Bitsatz 32-teilig', 'Bit set 32 pieces', 19.9], ['WG-110', 'H-003', 'L-02', 'Subwoofer', 'Subwoofer', 249],
  ['WG-110', 'H-002', 'L-02', 'Kopfhörer-Polster', 'Headphone ear pads', 14.9], ['WG-120', 'H-001', 'L-02', 'Lautsprecherkabel 10 m', 'Speaker cable 10 m', 16.5],
  ['WG-210', 'H-001', 'L-01', 'Milchaufschäumer', 'Milk frother', 39.9], ['WG-210', 'H-001', 'L-01', 'Teekanne 1,2 l', 'Teapot 1.2 l', 29],
  ['WG-300', 'H-005', 'L-01', 'Brotbackbuch', 'Bread baking book', 22], ['WG-300', 'H-005', 'L-01', 'Pilzführer', 'Mushroom guide', 18.9],
  ['WG-230', 'H-004', 'L-03', 'Regentonne 200 l', 'Rain barrel 200 l', 79], ['WG-230', 'H-004', 'L-03', 'Komposter', 'Composter', 89.5],
  // Variant articles (DEMO-1067, DEMO-1068): their sizes and colours are in demoVariants().
  ['WG-220', 'H-001', 'L-03', 'Arbeitshemd', 'Work shirt', 24.9], ['WG-220', 'H-001', 'L-03', 'Arbeitshandschuhe Pro', 'Work gloves pro', 12.9],
];

/** Variant parents: [ARTNR, attributes as [Merkmal, Merkmal_EN, [Wert, Wert_EN, Kürzel, Aufpreis][]][]]. */
const VARIANTEN: readonly [string, readonly [string, string, readonly [string, string, string, number][]][]][] = [
  ['DEMO-1067', [['Farbe', 'Colour', [['Blau', 'Blue', 'BL', 0], ['Grau', 'Grey', 'GR', 0]]], ['Größe', 'Size', [['M', 'M', 'M', 0], ['L', 'L', 'L', 0], ['XL', 'XL', 'XL', 2]]]]],
  ['DEMO-1068', [['Größe', 'Size', [['8', '8', '08', 0], ['9', '9', '09', 0], ['10', '10', '10', 0], ['11', '11', '11', 0.5]]]]],
];

/** The demo's variant data: one row per variant (SKU), one per variant and attribute, and stock per variant and Lager. */
export function demoVariants(): { varianten: ErpRow[]; merkmale: ErpRow[]; lager: ErpRow[] } {
  const varianten: ErpRow[] = [];
  const merkmale: ErpRow[] = [];
  const lager: ErpRow[] = [];
  for (const [artnr, attributes] of VARIANTEN) {
    // Every combination of the attributes' values is one SKU (colour × size, or size alone).
    let combos: [string, string, string, string, string, number][][] = [[]];
    for (const [merkmal, merkmalEn, werte] of attributes) combos = combos.flatMap((c) => werte.map(([w, wEn, k, p]) => [...c, [merkmal, merkmalEn, w, wEn, k, p] as [string, string, string, string, string, number]]));
    combos.forEach((combo, n) => {
      const varnr = `${artnr}-${combo.map((v) => v[4]).join('-')}`;
      varianten.push({ VARNR: varnr, ARTNR: artnr, EAN: ean13(String(400638140000 + varianten.length * 7).slice(0, 12)), Bestand: deDecimal(3 + ((n * 5) % 11), 3), Aufpreis: deDecimal(combo.reduce((sum, v) => sum + v[5], 0)), Sortierung: String(n + 1) });
      combo.forEach((v, i) => merkmale.push({ VARNR: varnr, MerkmalPos: String(i + 1), Merkmal: v[0], Merkmal_EN: v[1], Wert: v[2], Wert_EN: v[3] }));
      lager.push({ VARNR: varnr, ARTNR: artnr, Lager: '1', Bestand: deDecimal(2 + (n % 4), 3), Mindestbestand: deDecimal(1, 3) });
    });
  }
  return { varianten, merkmale, lager };
}

const DESCRIPTIONS = ['aus unserem Sortiment', 'in bewährter Qualität', 'vom Fachhändler', 'für den täglichen Einsatz'];

/** Every article of the demo ERP (ARTNR = shop products_model). */
export function demoArticles(): ErpRow[] {
  const rnd = createRandom(1001);
  return [...ARTIKEL, ...NEU].map(([wg, hersteller, lieferant, de, en, price], i) => {
    const artnr = `DEMO-${1001 + i}`;
    const extra = i % 9 === 4 ? ',WG-900' : '';
    return {
      ARTNR: artnr,
      EAN: ean13(String(400638133300 + i * 7).slice(0, 12)),
      Bezeichnung: de,
      Bezeichnung_EN: en,
      Langtext: `${de} ${rnd.pick(DESCRIPTIONS)}.`,
      VK_Netto: deDecimal(price),
      EK_Netto: deDecimal(price * 0.55),
      Gewicht_kg: deDecimal(0.2 + (i % 9) * 0.35, 3),
      HerstellerNr: hersteller,
      Warengruppen: `${wg}${extra}`,
      LieferantNr: lieferant,
      // One article lacks the supplier's part number: the guard rail refuses it instead of erasing the shop's number.
      Lief_ArtNr: i === 11 ? '' : `${lieferant.replace('L-', 'LF')}-${String(50000 + i * 37)}`,
      Aktiv: i === 46 ? 'N' : 'J',
      Bestand: deDecimal(wg === 'WG-900' ? 1 : 5 + ((i * 13) % 60), 3),
      Mindestbestand: deDecimal(2, 3),
      Meldebestand: deDecimal(5, 3),
      Einheit: 'Stk',
      Geaendert: `${addDays(CHANGED, -(i % 20))} ${String(8 + (i % 10)).padStart(2, '0')}:${String((i * 7) % 60).padStart(2, '0')}:00`,
    };
  });
}

/** Price tiers per customer group (Preisgruppe HAE = merchants, EXP = export), several quantity steps per group. */
export function demoPriceTiers(): ErpRow[] {
  const rows: ErpRow[] = [];
  demoArticles().forEach((a, i) => {
    if (i % 3 !== 0) return;
    const net = Number(a.VK_Netto.replace(',', '.'));
    const tiers: [string, number, number][] = [['HAE', 1, 0.85], ['HAE', 10, 0.8], ['HAE', 50, 0.75]];
    if (i % 6 === 0) tiers.push(['EXP', 1, 0.84]);
    for (const [gruppe, ab, factor] of tiers) rows.push({ ARTNR: a.ARTNR, Preisgruppe: gruppe, AbMenge: deDecimal(ab, 3), Preis_Netto: deDecimal(net * factor) });
  });
  return rows;
}

/** Specials (Aktionspreise) with German dates. */
export function demoSpecials(): ErpRow[] {
  return demoArticles()
    .filter((_, i) => i % 8 === 1)
    .map((a, n) => {
      const net = Number(a.VK_Netto.replace(',', '.'));
      const start = addDays('2026-12-01', n);
      return { ARTNR: a.ARTNR, Aktionspreis: deDecimal(net * 0.9), Gueltig_Von: deDate(start), Gueltig_Bis: deDate(addDays(start, 30)), Preisgruppe: '' };
    });
}

/** Stock per warehouse: Lager 1 (north) for every article, Lager 2 (south) for every other one. */
export function demoStock(): ErpRow[] {
  const rows: ErpRow[] = [];
  demoArticles().forEach((a, i) => {
    rows.push({ ARTNR: a.ARTNR, Lager: '1', Bestand: deDecimal(10 + (i % 7), 3), Mindestbestand: deDecimal(2, 3), Lagerplatz: `R${String(1 + (i % 12)).padStart(2, '0')}-F${String(1 + (i % 5)).padStart(2, '0')}` });
    if (i % 2 === 0) rows.push({ ARTNR: a.ARTNR, Lager: '2', Bestand: deDecimal(5 + (i % 4), 3), Mindestbestand: deDecimal(1, 3), Lagerplatz: `Süd ${String.fromCharCode(65 + (i % 6))}-${1 + (i % 9)}` });
  });
  return rows;
}

/** Manufacturers (Hersteller) with product-safety contact data. */
export function demoManufacturers(): ErpRow[] {
  return HERSTELLER.map(([nr, name, strasse, plz, ort, land, eu]) => {
    const slug = name.toLowerCase().replace(/[^a-z]+/g, '');
    return { HerstellerNr: nr, Name: name, Strasse: strasse, PLZ: plz, Ort: ort, Land: land, EU: eu, Email: `produktsicherheit@${slug}.example`, Telefon: '+49 30 1234567', Webseite: `https://${slug}.example`, Geaendert: `${CHANGED} 07:00:00` };
  });
}

/** Category codes (Warengruppen), parents first (Ebene 1 before 2). */
export function demoCategories(): ErpRow[] {
  return WARENGRUPPEN.map(([code, parent, de, en, aktiv, ebene], i) => ({
    WGR: code,
    Ueber_WGR: parent,
    Bezeichnung: de,
    Bezeichnung_EN: en,
    Aktiv: aktiv,
    Ebene: ebene,
    Sortierung: String((i + 1) * 10),
    Geaendert: `${CHANGED} 06:${String(i).padStart(2, '0')}:00`,
  }));
}
