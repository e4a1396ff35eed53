/** Mapping files the tests write next to their ERP fixtures. */

/** A products mapping (ERP rows `sku, name, price, qty` → shop products), under the mapping name `name`. */
export function productsMapping(name: string): string {
  return `
name: ${name}
direction: erp-to-shop
target: { resource: products, operation: upsert }
key: sku
shop_key: products_model
fields:
  products_model: sku
  products_price: { from: price, type: decimal, locale: point }
  products_quantity: { from: qty, type: decimal, locale: point }
  products_status: { value: 1 }
  languages.de.products_name: name
`;
}
