/**
 * Demo customers: gross, net and tax-exempt groups, several addresses, discounts, and two legacy
 * customers sharing one external number (the write rules refuse that, but old data has it; it
 * makes the "ambiguous external number" rules observable).
 */
import type { SandboxContext } from '../../handler.js';

const DATE = '2026-01-10 10:00:00';

/** [firstname, lastname, email, group, extern, language, company, street, postcode, city, country iso, country id, zone]. */
const CUSTOMERS: readonly [string, string, string, number, string | null, number, string, string, string, string, string, number, number][] = [
  ['Erika', 'Mustermann', 'erika@example.com', 2, 'K-10001', 2, '', 'Hauptstraße 5', '10115', 'Berlin', 'DE', 81, 80],
  ['Max', 'Schneider', 'max.schneider@example.com', 2, 'K-10002', 2, '', 'Lindenweg 12', '80331', 'München', 'DE', 81, 79],
  ['Jane', 'Doe', 'jane.doe@example.org', 2, 'K-10003', 1, '', 'Ringstraße 1', '1010', 'Wien', 'AT', 14, 95],
  ['Hans', 'Becker', 'einkauf@becker-handel.example', 3, 'K-20001', 2, 'Becker Handel GmbH', 'Gewerbepark 3', '20095', 'Hamburg', 'DE', 81, 84],
  ['Petra', 'Wolf', 'p.wolf@wolf-technik.example', 3, 'K-20002', 2, 'Wolf Technik KG', 'Industriestraße 44', '50667', 'Köln', 'DE', 81, 88],
  ['Luca', 'Rossi', 'orders@alpen-import.example', 4, 'K-30001', 1, 'Alpen Import AG', 'Bahnhofstrasse 10', '8001', 'Zürich', 'CH', 204, 104],
  ['Sophie', 'Martin', 'sophie.martin@example.fr', 2, null, 1, '', '12 Rue de la Paix', '75002', 'Paris', 'FR', 73, 0],
  ['Klaus', 'Fischer', 'klaus.fischer@example.com', 2, 'K-DUP', 2, '', 'Am Markt 2', '90403', 'Nürnberg', 'DE', 81, 79],
  ['Karin', 'Fischer', 'karin.fischer@example.com', 2, 'K-DUP', 2, '', 'Am Markt 2', '90403', 'Nürnberg', 'DE', 81, 79],
  ['Tom', 'Gast', 'tom.gast@example.com', 1, null, 2, '', 'Seeweg 9', '20457', 'Hamburg', 'DE', 81, 84],
];

/** Load the demo customers. */
export function seedCustomers(ctx: SandboxContext): void {
  CUSTOMERS.forEach(([first, last, email, group, extern, language, company, street, postcode, city, iso, countryId, zone], i) => {
    const id = i + 1;
    const addressId = ctx.store.nextSequence('address_book');
    const addresses: Record<string, unknown>[] = [
      { address_book_id: addressId, entry_company: company, entry_firstname: first, entry_lastname: last, entry_street_address: street, entry_suburb: '', entry_postcode: postcode, entry_city: city, entry_country_id: countryId, entry_country: iso, entry_zone_id: zone },
    ];
    let billing = addressId;
    if (id === 4) {
      billing = ctx.store.nextSequence('address_book');
      addresses.push({ address_book_id: billing, entry_company: company, entry_firstname: 'Buchhaltung', entry_lastname: last, entry_street_address: 'Postfach 1020', entry_suburb: '', entry_postcode: '20001', entry_city: city, entry_country_id: countryId, entry_country: iso, entry_zone_id: zone });
    }
    const discounts = id === 4 ? [{ category_id: 5, value: 10, subcategories: 1, qpb: 0, option: 0, special: 0 }] : id === 5 ? [{ category_id: 1, value: 7.5, subcategories: 1, qpb: 0, option: 0, special: 0 }] : [];
    ctx.store.put('customers', id, {
      customers_id: id,
      customers_id_extern: extern,
      customers_email_address: email,
      customers_firstname: first,
      customers_lastname: last,
      customers_telephone: `+49 30 1000${id}`,
      customers_fax: '',
      customers_group_id: group,
      language_id: language,
      customers_default_address_id: addressId,
      customers_billing_address_id: billing,
      addresses,
      discounts,
      customers_discount_release: discounts.length > 0 ? 1 : 0,
      // Stored like the shop does; the export never shows these.
      customers_password: `$2y$10$demo.hash.for.customer.${id}`,
      customers_password_request: '',
      customers_password_request_time: null,
      customers_hash: `h${id}x${id * 7}`,
      iban: `DE8937040044053201300${id}`,
      bic: 'COBADEFFXXX',
      customers_date_added: DATE,
      customers_last_modified: DATE,
    });
  });
}
