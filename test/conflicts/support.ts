/** The articles mapping of the conflicts tests (ERP rows sku, name, price, [ean,] description → shop products), the owners given per field. */

/** Owners per field (absent: the ERP's); `ean: false` for an ERP table without the column. */
export interface ArticleOwners {
  readonly description?: 'erp' | 'shop' | 'guard';
  readonly ean?: 'erp' | 'shop' | 'guard' | false;
}

/** The mapping file's text. */
export function articlesMapping(owners: ArticleOwners = {}): string {
  const own = (o: string | undefined) => (o ? `, owner: ${o}` : '');
  return `
name: articles
direction: erp-to-shop
target: { resource: products, operation: upsert }
key: sku
shop_key: products_model
fields:
  products_model: sku
  products_price: { from: price, type: decimal, locale: point }
  products_status: { value: 1 }
${owners.ean === false ? '' : `  products_ean: { from: ean${own(owners.ean)} }\n`}  languages.de.products_name: name
  languages.de.products_description: { from: description${own(owners.description)} }
`;
}
