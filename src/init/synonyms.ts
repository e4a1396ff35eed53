/**
 * Column names ERPs use for shop fields, keyed by the registry's field name (the last segment of
 * its path). Only fields the chosen resource really has are ever proposed: the registry decides
 * what exists, this table only says what a German or English ERP tends to call it.
 */
export const SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  // Tryton `code`, Odoo `default_code`, ERPNext `item_code`, Dolibarr `ref`, and German/English article numbers.
  products_model: ['code', 'defaultcode', 'itemcode', 'productcode', 'articlecode', 'ref', 'reference', 'sku', 'artnr', 'artikelnr', 'artikelnummer', 'artikel', 'itemno', 'itemnumber', 'item', 'partno', 'partnumber', 'productnumber', 'produktnummer', 'model', 'modell', 'matchcode'],
  products_ean: ['ean', 'gtin', 'ean13', 'gtin13', 'barcode', 'upc', 'eancode', 'barcodenumber'],
  products_price: ['preis', 'vk', 'vknetto', 'vkpreis', 'verkaufspreis', 'nettopreis', 'price', 'netprice', 'listprice', 'saleprice', 'vk1', 'standardrate', 'pricelist', 'sellingprice'],
  products_cost: ['ek', 'eknetto', 'ekpreis', 'einkaufspreis', 'cost', 'costprice', 'purchaseprice', 'standardprice', 'valuationrate', 'costpricevalue'],
  // Tryton/Odoo `qty_on_hand`/`qty_available`, ERPNext `actual_qty`, Dolibarr `stock`/`reel`.
  products_quantity: ['bestand', 'stock', 'qty', 'quantity', 'menge', 'lagerbestand', 'onhand', 'available', 'verfuegbar', 'istbestand', 'qtyonhand', 'quantityonhand', 'qtyavailable', 'availableqty', 'actualqty', 'stockqty', 'stockreel', 'reel', 'lagermenge', 'qtyinstock'],
  products_weight: ['gewicht', 'gewichtkg', 'weight', 'weightkg', 'nettogewicht', 'weightpercount', 'netweight'],
  products_status: ['aktiv', 'active', 'status', 'enabled', 'online', 'sichtbar', 'visible', 'tosell', 'saleok', 'salable', 'sellable'],
  products_name: ['bezeichnung', 'bezeichnung1', 'name', 'artikelname', 'artikelbezeichnung', 'produktname', 'title', 'titel', 'productname', 'itemname', 'label'],
  products_description: ['beschreibung', 'langtext', 'description', 'longdescription', 'artikelbeschreibung'],
  products_short_description: ['kurztext', 'kurzbeschreibung', 'shortdescription', 'bezeichnung2'],
  products_min_qty: ['mindestmenge', 'minqty', 'moq', 'mindestabnahme'],
  products_reorder_level: ['meldebestand', 'reorderlevel', 'reorderpoint'],
  products_safe_quantity: ['mindestbestand', 'sicherheitsbestand', 'safetystock'],
  products_date_available: ['lieferbarab', 'verfuegbarab', 'availablefrom', 'availabledate'],
  products_sort_order: ['sortierung', 'sort', 'sortorder', 'reihenfolge'],
  manufacturers_name: ['hersteller', 'herstellername', 'manufacturer', 'brand', 'marke'],
  customers_id_extern: ['kdnr', 'kundennr', 'kundennummer', 'customerno', 'customernumber', 'debitor', 'debitorennr'],
  customers_email_address: ['email', 'mail', 'emailadresse', 'emailaddress'],
  customers_firstname: ['vorname', 'firstname', 'givenname'],
  customers_lastname: ['nachname', 'lastname', 'surname', 'familyname'],
  customers_telephone: ['telefon', 'tel', 'phone', 'telephone', 'telefonnummer'],
  customers_fax: ['fax', 'telefax'],
  customers_group_id: ['kundengruppe', 'preisgruppe', 'customergroup'],
};

/** A name as compared: lower case, umlauts spelt out, only letters and digits. */
export function normalise(name: string): string {
  return name
    .toLowerCase()
    .replace(/ä/g, 'ae')
    .replace(/ö/g, 'oe')
    .replace(/ü/g, 'ue')
    .replace(/ß/g, 'ss')
    .replace(/[^a-z0-9]/g, '');
}

/** A field's name without the resource prefix the API puts before most names (`products_ean` → `ean`). */
export function bareName(field: string, resource: string): string {
  const singular = resource.replace(/s$/, '');
  for (const prefix of [`${resource}_`, `${singular}_`, 'entry_']) if (field.startsWith(prefix)) return field.slice(prefix.length);
  return field;
}
