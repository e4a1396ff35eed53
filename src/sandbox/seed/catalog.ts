/**
 * The demo catalog: categories, manufacturers, suppliers and 50 products with both languages,
 * group prices, specials, stock per warehouse, options and option groups. Deterministic: every
 * value derives from the product's position.
 */
import type { SandboxContext } from '../handler.js';
import { round4 } from '../kit.js';
import { productDefaults } from '../handlers/products/scalars.js';
import { slugify } from '../handlers/products/relations.js';
import { GPSR_FIELDS } from '../../shop/resources/manufacturers.js';

const DATE = '2026-01-05 09:00:00';

const CATEGORIES: readonly [number, number, string, string, number][] = [
  [1, 0, 'Electronics', 'Elektronik', 1],
  [2, 1, 'Audio', 'Audio', 1],
  [3, 1, 'Cables & adapters', 'Kabel & Adapter', 1],
  [4, 0, 'Home & garden', 'Haus & Garten', 1],
  [5, 4, 'Kitchen', 'Küche', 1],
  [6, 4, 'Tools', 'Werkzeug', 1],
  [7, 0, 'Books', 'Bücher', 1],
  [8, 0, 'Outlet', 'Restposten', 0],
];

const MANUFACTURERS: readonly [number, string, string, string][] = [
  [1, 'Nordwerk', 'DE', 'eu'],
  [2, 'Klangfabrik', 'DE', 'eu'],
  [3, 'Pacific Audio Inc.', 'US', 'non-eu'],
  [4, 'Gartenfreund', 'AT', 'eu'],
  [5, 'Leseratte Verlag', 'DE', 'eu'],
];

const SUPPLIERS: readonly [number, string, string, string, string][] = [
  [1, 'Großhandel Meyer GmbH', 'Hafenstraße 12', '20457', 'Hamburg'],
  [2, 'Elektro-Import Schulz', 'Industriering 4', '90411', 'Nürnberg'],
  [3, 'Werkzeug Direkt KG', 'Am Bahnhof 7', '44135', 'Dortmund'],
];

/** [category, manufacturer, supplier, tax class, English name, German name, net price]. */
const PRODUCTS: readonly [number, number, number, number, string, string, number][] = [
  [2, 2, 2, 1, 'Studio headphones', 'Studiokopfhörer', 89.9], [2, 2, 2, 1, 'Bluetooth speaker', 'Bluetooth-Lautsprecher', 49.5],
  [2, 3, 2, 1, 'Turntable', 'Plattenspieler', 219], [2, 3, 2, 1, 'In-ear monitors', 'In-Ear-Monitore', 129], [2, 2, 2, 1, 'Desk microphone', 'Tischmikrofon', 64.9],
  [2, 3, 2, 1, 'Soundbar', 'Soundbar', 179], [2, 2, 2, 1, 'Headphone stand', 'Kopfhörerständer', 19.9], [2, 2, 2, 1, 'Audio interface', 'Audio-Interface', 139],
  [3, 1, 2, 1, 'HDMI cable 2 m', 'HDMI-Kabel 2 m', 9.9], [3, 1, 2, 1, 'USB-C cable 1 m', 'USB-C-Kabel 1 m', 7.5], [3, 1, 2, 1, 'Power strip 6-way', 'Steckdosenleiste 6-fach', 18.9],
  [3, 1, 2, 1, 'Travel adapter', 'Reiseadapter', 14.5], [3, 1, 2, 1, 'Audio cable 3.5 mm', 'Audiokabel 3,5 mm', 5.9], [3, 1, 2, 1, 'Network cable 5 m', 'Netzwerkkabel 5 m', 8.4],
  [5, 1, 1, 1, 'Chef knife', 'Kochmesser', 59], [5, 1, 1, 1, 'Cast iron pan', 'Gusseisenpfanne', 74.9], [5, 4, 1, 1, 'Herb planter', 'Kräutertopf', 24.9],
  [5, 1, 1, 1, 'Espresso cups (set of 4)', 'Espressotassen (4er-Set)', 29.9], [5, 1, 1, 2, 'Organic coffee beans 1 kg', 'Bio-Kaffeebohnen 1 kg', 18.5], [5, 1, 1, 2, 'Green tea 250 g', 'Grüner Tee 250 g', 8.9],
  [5, 1, 1, 1, 'Kitchen scale', 'Küchenwaage', 22.5], [5, 1, 1, 1, 'Cutting board oak', 'Schneidebrett Eiche', 34], [5, 1, 1, 2, 'Olive oil 750 ml', 'Olivenöl 750 ml', 12.9],
  [6, 1, 3, 1, 'Cordless drill', 'Akkuschrauber', 99], [6, 1, 3, 1, 'Screwdriver set', 'Schraubendreher-Set', 27.9], [6, 4, 3, 1, 'Garden shears', 'Gartenschere', 21.5],
  [6, 1, 3, 1, 'Spirit level 60 cm', 'Wasserwaage 60 cm', 16.9], [6, 1, 3, 1, 'Tape measure 5 m', 'Maßband 5 m', 9.5], [6, 4, 3, 1, 'Watering can 10 l', 'Gießkanne 10 l', 17.9],
  [6, 1, 3, 1, 'Work gloves', 'Arbeitshandschuhe', 6.9], [6, 1, 3, 1, 'Toolbox', 'Werkzeugkasten', 39.9], [6, 4, 3, 1, 'Garden hose 20 m', 'Gartenschlauch 20 m', 32.9],
  [7, 5, 1, 2, 'Cookbook: Alpine kitchen', 'Kochbuch: Alpenküche', 24], [7, 5, 1, 2, 'Field guide to birds', 'Vogelführer', 19.8], [7, 5, 1, 2, 'Woodworking basics', 'Grundkurs Holzarbeiten', 29.8],
  [7, 5, 1, 2, 'Garden calendar', 'Gartenkalender', 12], [7, 5, 1, 2, 'Coffee atlas', 'Kaffeeatlas', 34], [7, 5, 1, 2, 'Hi-fi history', 'Geschichte des Hi-Fi', 27.5],
  [2, 3, 2, 1, 'Portable radio', 'Kofferradio', 44.9], [2, 2, 2, 1, 'Vinyl cleaning kit', 'Schallplatten-Reinigungsset', 15.9], [3, 1, 2, 1, 'Optical cable 1.5 m', 'Optisches Kabel 1,5 m', 11.9],
  [5, 1, 1, 1, 'French press', 'French Press', 27.5], [5, 1, 1, 1, 'Bread knife', 'Brotmesser', 39], [6, 4, 3, 1, 'Rake', 'Rechen', 18.5],
  [6, 1, 3, 1, 'Hammer 500 g', 'Hammer 500 g', 14.9], [8, 2, 2, 1, 'Headphones (B-stock)', 'Kopfhörer (B-Ware)', 45], [8, 1, 1, 1, 'Pan set (display item)', 'Pfannenset (Ausstellungsstück)', 59],
  [8, 4, 3, 1, 'Garden chair (returned)', 'Gartenstuhl (Retoure)', 39], [2, 2, 2, 1, 'Headphone amplifier', 'Kopfhörerverstärker', 149], [5, 1, 1, 2, 'Honey 500 g', 'Honig 500 g', 7.9],
];

function seedCategories(ctx: SandboxContext): void {
  for (const [id, parent, en, de, status] of CATEGORIES) {
    ctx.store.put('categories', id, {
      categories_id: id, parent_id: parent, categories_status: status, sort_order: id * 10, categories_image: '',
      languages: {
        de: { name: de, heading: de, short_description: '', description: `<p>${de}</p>`, title_tag: de, desc_tag: '' },
        en: { name: en, heading: en, short_description: '', description: `<p>${en}</p>`, title_tag: en, desc_tag: '' },
      },
      date_added: DATE, last_modified: DATE,
    });
  }
}

function seedManufacturers(ctx: SandboxContext): void {
  for (const [id, name, country, region] of MANUFACTURERS) {
    const contact = Object.fromEntries(GPSR_FIELDS.map((f) => [f, '']));
    const prefix = region === 'eu' ? 'manufacturers_gpsr_contact_' : 'manufacturers_gpsr_non_eu_contact_';
    Object.assign(contact, { [`${prefix}company`]: name, [`${prefix}street`]: 'Main Street 1', [`${prefix}postcode`]: '10115', [`${prefix}city`]: 'Berlin', [`${prefix}country`]: region === 'eu' ? country : 'DE', [`${prefix}email`]: `safety@${slugify(name)}.example`, [`${prefix}phone`]: '+49 30 123456', [`${prefix}url`]: `https://${slugify(name)}.example` });
    if (region !== 'eu') Object.assign(contact, { manufacturers_gpsr_contact_company: name, manufacturers_gpsr_contact_country: country, manufacturers_gpsr_contact_city: 'San Diego' });
    ctx.store.put('manufacturers', id, {
      manufacturers_id: id, manufacturers_name: name, manufacturers_image: `manufacturers/${slugify(name)}.png`,
      languages: { de: { manufacturers_description: `${name} – Hersteller`, manufacturers_url: `https://${slugify(name)}.example/de`, manufacturers_meta_title: name, manufacturers_meta_description: '', manufacturers_meta_keywords: '', seo_name: slugify(name) }, en: { manufacturers_description: `${name} – manufacturer`, manufacturers_url: `https://${slugify(name)}.example/en`, manufacturers_meta_title: name, manufacturers_meta_description: '', manufacturers_meta_keywords: '', seo_name: slugify(name) } },
      ...contact, date_added: DATE, last_modified: DATE,
    });
  }
}

function seedSuppliers(ctx: SandboxContext): void {
  for (const [id, name, street, postcode, city] of SUPPLIERS) {
    ctx.store.put('suppliers', id, {
      suppliers_id: id, suppliers_name: name, suppliers_street: street, suppliers_postcode: postcode, suppliers_city: city, suppliers_country: 'DE',
      suppliers_email: `einkauf@${slugify(name)}.example`, suppliers_phone: '+49 40 555 0' + id, suppliers_fax: '', suppliers_url: `https://${slugify(name)}.example`,
      languages: { de: { suppliers_info: `Lieferant ${name}` }, en: { suppliers_info: `Supplier ${name}` } }, date_added: DATE, last_modified: DATE,
    });
  }
}

/** Options{} of the headphones: colour (select, default black) and a display attribute "gift wrap". */
const HEADPHONE_OPTIONS = {
  '1': { options_id: 1, type: 0, languages: { de: { name: 'Farbe' }, en: { name: 'Colour' } }, values: [
    { options_values_id: 1, languages: { de: { name: 'Schwarz' }, en: { name: 'Black' } }, price_prefix: '+', price: 0, default: 1, model: 'DEMO-1001-BK', ean: '4006381333931', quantity: 12, sort_order: 1 },
    { options_values_id: 2, languages: { de: { name: 'Weiß' }, en: { name: 'White' } }, price_prefix: '+', price: 5, default: 0, model: 'DEMO-1001-WH', ean: '4006381333948', quantity: 4, sort_order: 2 },
  ] },
  '5': { options_id: 5, type: 5, languages: { de: { name: 'Geschenkverpackung' }, en: { name: 'Gift wrap' } }, values: [
    { options_values_id: 9, languages: { de: { name: 'Inklusive' }, en: { name: 'Included' } }, price_prefix: '+', price: 2.5, default: 1, model: '', ean: '', quantity: 0, sort_order: 1 },
  ] },
};

const SPEAKER_OPTION_GROUPS = [{
  group: 1,
  options: [{ id: 2, languages: { de: { name: 'Farbe' }, en: { name: 'Colour' } } }, { id: 3, languages: { de: { name: 'Größe' }, en: { name: 'Size' } } }],
  combinations: [
    { detail_id: 11, values: [{ options_id: 2, options_values_id: 3, languages: { de: { name: 'Rot' }, en: { name: 'Red' } } }, { options_id: 3, options_values_id: 5, languages: { de: { name: 'Klein' }, en: { name: 'Small' } } }], model: 'DEMO-1002-RS', ean: '4006381334006', quantity: 7, price: 0, sort_id: 1 },
    { detail_id: 12, values: [{ options_id: 2, options_values_id: 3, languages: { de: { name: 'Rot' }, en: { name: 'Red' } } }, { options_id: 3, options_values_id: 6, languages: { de: { name: 'Groß' }, en: { name: 'Large' } } }], model: 'DEMO-1002-RL', ean: '4006381334013', quantity: 3, price: 20, sort_id: 2 },
    { detail_id: 0, values: [{ options_id: 2, options_values_id: 4, languages: { de: { name: 'Blau' }, en: { name: 'Blue' } } }, { options_id: 3, options_values_id: 5, languages: { de: { name: 'Klein' }, en: { name: 'Small' } } }], model: null, ean: null, quantity: null, price: null, sort_id: null },
  ],
}];

function seedProducts(ctx: SandboxContext): void {
  const rates = new Map(ctx.reference().tax_classes.map((t) => [t.tax_class_id, t.rate]));
  PRODUCTS.forEach(([category, manufacturer, supplier, taxClass, en, de, price], i) => {
    const id = i + 1;
    const model = `DEMO-${1001 + i}`;
    const rate = rates.get(taxClass) ?? 0;
    const merchant = round4(price * 0.85);
    const storages = i % 3 === 0 ? [
      { storages_id: 1, options_id: 0, products_quantity: 10 + (i % 7), products_safe_quantity: 2, products_reorder_level: 4, products_storage_text: `A-${String(id).padStart(2, '0')}` },
      { storages_id: 3, options_id: 0, products_quantity: 5 + (i % 4), products_safe_quantity: 1, products_reorder_level: 2, products_storage_text: `S-${String(id).padStart(2, '0')}` },
    ] : [];
    if (id === 4) storages.push({ storages_id: 2, options_id: 0, products_quantity: 3, products_safe_quantity: 0, products_reorder_level: 0, products_storage_text: 'old' });
    ctx.store.put('products', id, {
      products_id: id,
      ...productDefaults('24'),
      products_model: model,
      products_ean: String(4006381333000 + id * 7),
      products_price: price,
      products_weight: round4(0.2 + (i % 9) * 0.35),
      products_quantity: category === 8 ? 1 : 5 + ((i * 13) % 60),
      products_cost: round4(price * 0.55),
      manufacturers_id: manufacturer,
      products_status: i === 46 ? 0 : 1,
      products_tax_class_id: taxClass,
      products_reorder_level: 5,
      products_safe_quantity: 2,
      warranty_type: category === 7 ? null : 'physical',
      products_date_added: DATE,
      products_last_modified: DATE,
      languages: {
        de: { products_name: de, products_description: `<p>${de} aus unserem Sortiment.</p>`, products_short_description: de, products_head_title_tag: de, products_head_desc_tag: '', products_head_keywords_tag: '', seo_name: slugify(de), products_url: '', products_checkout_description: '', products_image_title: de },
        en: { products_name: en, products_description: `<p>${en} from our range.</p>`, products_short_description: en, products_head_title_tag: en, products_head_desc_tag: '', products_head_keywords_tag: '', seo_name: slugify(en), products_url: '', products_checkout_description: '', products_image_title: en },
      },
      images: [{ image: `${slugify(en)}-1.jpg`, sort_order: 1, alt: { de, en } }],
      categories: i % 10 === 0 && category !== 8 ? [category, 8] : [category],
      groups: [
        { customers_group_id: 3, customers_group_price: merchant, customers_group_price_gross: round4(merchant * (1 + rate / 100)), products_price1: round4(merchant * 0.95), products_price1_qty: 10 },
      ],
      customers_prices: [],
      specials: i % 8 === 1 ? [{ specials_price_id: 1, customers_group_id: 0, specials_new_products_price: round4(price * 0.9), discount_percent: null, specials_begin: '2026-01-01 00:00:00', specials_end: '2026-12-31 23:59:59', specials_type: '', status: 1, specials_price_name: { de: 'Aktion', en: 'Sale' } }] : [],
      upsells: [],
      suppliers: [{ suppliers_id: supplier, products_model: `S${supplier}-${4711 + i}` }],
      storages,
      extra_fields: [], badges: [], xsells: [], tabs: [], videos: [], downloads: [],
      options: id === 1 ? HEADPHONE_OPTIONS : {},
      option_groups: id === 2 ? SPEAKER_OPTION_GROUPS : [],
      contenteditor: {},
    });
  });
  // Upsells between a few products, by model.
  for (const [id, target] of [[1, 7], [1, 40], [15, 43]] as const) {
    const product = ctx.store.get('products', id);
    if (product) ctx.store.put('products', id, { ...product, upsells: [...(product.upsells as unknown[]), { products_id: target, products_model: `DEMO-${1000 + target}`, sort_order: 1 }] });
  }
}

/** Load the demo catalog. */
export function seedCatalog(ctx: SandboxContext): void {
  seedCategories(ctx);
  seedManufacturers(ctx);
  seedSuppliers(ctx);
  seedProducts(ctx);
}
