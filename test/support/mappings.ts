/** Mapping files the tests write next to their ERP fixtures. */

/** A products mapping (ERP rows `sku, name, price, qty` → shop products), under the mapping name `name`; `price: false` for rows without a price. */
export function productsMapping(name: string, options: { readonly price?: boolean } = {}): string {
  return `
name: ${name}
direction: erp-to-shop
target: { resource: products, operation: upsert }
key: sku
shop_key: products_model
fields:
  products_model: sku
${options.price === false ? '' : '  products_price: { from: price, type: decimal, locale: point }\n'}  products_quantity: { from: qty, type: decimal, locale: point }
  products_status: { value: 1 }
  languages.de.products_name: name
`;
}
