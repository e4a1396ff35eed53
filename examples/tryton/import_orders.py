#!/usr/bin/env python3
"""Import the shop orders shopsync staged into Tryton sales, through Tryton's own API (proteus).

shopsync's orders pull (`shopsync init --orders-pull`) writes every shop order into its staging
schema (`shopsync_in.orders`, `order_lines`, `order_addresses`); this script is the ERP side of that
contract (docs/connectors.md "Orders into your ERP", docs/erp/tryton.md "Orders into Tryton"):

1. claim the staged orders nobody has taken yet (`status IS NULL` -> `importing`, one statement, so
   two runs never take the same order);
2. per order: find the party by e-mail (create it, with its address and e-mail, when missing), the
   products by code (the shop's `products_model`), and create a draft `sale.sale` whose `reference`
   is the shop's order id, unless a sale with that reference exists already (then it is only
   recorded: a run that died after Tryton saved the sale never makes a second one);
3. mark the order `imported` with `imported_at` and the sale in `erp_reference`, or `failed` with
   Tryton's message in `import_error` (the other orders go on).

An order the shop changed after its import is updated in staging by shopsync (its row, never a
second one) and shows as `shopsync_delivered_at > imported_at`; this script lists such orders and
leaves the sale alone, for a person to look at (a confirmed sale is not rewritten by a script).

usage:
  python3 import_orders.py --database tryton [--config /etc/tryton/trytond.conf]
                           --staging "dbname=tryton host=127.0.0.1 user=tryton" [--schema shopsync_in]
                           [--retry] [--limit 500]

`--database`/`--config` are those of trytond (proteus runs Tryton in this process, as trytond-admin
does); `--staging` is a libpq connection string of the database holding the staging schema (often
Tryton's own). `--retry` also takes orders left `failed` or `importing` (a run that died): safe
against a second sale as the reference is looked up first, as long as no other import runs at the
same time (an `importing` order may be one it is working on). The last line of output is a JSON summary; the exit
code is 1 when an order failed.
"""
import argparse
import json
import re
import sys
from decimal import Decimal

import psycopg2
from psycopg2 import sql
from proteus import Model, config as pconfig

IDENTIFIER = re.compile(r'^[A-Za-z_][A-Za-z0-9_]*$')


class OrderRefused(Exception):
    """An order Tryton cannot take as it is (an unknown product code, no e-mail): marked failed."""


def claim(conn, schema, retry, limit):
    """Take the orders to import in one statement; returns their ids with the version read."""
    statuses = "status IS NULL OR status IN ('failed', 'importing')" if retry else 'status IS NULL'
    query = sql.SQL(
        'UPDATE {orders} SET status = %s, import_error = NULL WHERE orders_id IN ('
        ' SELECT orders_id FROM {orders} WHERE ' + statuses +
        ' ORDER BY orders_id LIMIT %s FOR UPDATE SKIP LOCKED)'
        ' RETURNING orders_id, shopsync_delivered_at').format(orders=sql.Identifier(schema, 'orders'))
    with conn.cursor() as cur:
        cur.execute(query, ('importing', limit))
        rows = cur.fetchall()
    conn.commit()
    return sorted(rows)


def rows(conn, query, params):
    with conn.cursor() as cur:
        cur.execute(query, params)
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]


def staged(conn, schema, orders_id):
    """The order, its lines (by pos) and its addresses (by kind) as shopsync staged them."""
    table = lambda name: sql.Identifier(schema, name)
    order, = rows(conn, sql.SQL('SELECT * FROM {} WHERE orders_id = %s').format(table('orders')), (orders_id,))
    lines = rows(conn, sql.SQL('SELECT * FROM {} WHERE orders_id = %s ORDER BY pos').format(table('order_lines')), (orders_id,))
    addresses = {a['kind']: a for a in rows(conn, sql.SQL('SELECT * FROM {} WHERE orders_id = %s').format(table('order_addresses')), (orders_id,))}
    return order, lines, addresses


def mark(conn, schema, orders_id, read_version, status, reference=None, error=None):
    """Record the outcome. An order shopsync changed while it was imported keeps the version read
    as its imported_at, so `shopsync_delivered_at > imported_at` shows the change."""
    query = sql.SQL(
        'UPDATE {} SET status = %s, erp_reference = COALESCE(%s, erp_reference), import_error = %s,'
        ' imported_at = CASE WHEN %s THEN (CASE WHEN shopsync_delivered_at = %s THEN now() ELSE %s END) ELSE imported_at END'
        ' WHERE orders_id = %s').format(sql.Identifier(schema, 'orders'))
    with conn.cursor() as cur:
        cur.execute(query, (status, reference, error, status == 'imported', read_version, read_version, orders_id))
    conn.commit()


def postal_field(Address):
    # Tryton renamed `zip` to `postal_code`; take whichever this version has.
    return 'postal_code' if 'postal_code' in Address._fields else 'zip'


def fill_address(address, staged_address, Country):
    address.name = staged_address.get('company') or None
    address.street = '\n'.join(x for x in [staged_address.get('street'), staged_address.get('additional')] if x)
    setattr(address, postal_field(type(address)), staged_address.get('postcode') or None)
    address.city = staged_address.get('city') or None
    code = staged_address.get('country_code')
    countries = Country.find([('code', '=', code)]) if code else []
    if countries:
        address.country = countries[0]


def same_address(address, staged_address):
    street = '\n'.join(x for x in [staged_address.get('street'), staged_address.get('additional')] if x)
    return ((address.street or '') == street
        and (getattr(address, postal_field(type(address))) or '') == (staged_address.get('postcode') or '')
        and (address.city or '') == (staged_address.get('city') or ''))


def party_of(order, addresses):
    """The party with the order's e-mail, created (with its billing address) when there is none."""
    Party = Model.get('party.party')
    Contact = Model.get('party.contact_mechanism')
    Country = Model.get('country.country')
    email = (order.get('customers_email_address') or (addresses.get('billing') or {}).get('email') or '').strip()
    if not email:
        raise OrderRefused('the order has no e-mail address to find its party by')
    found = {c.party.id: c.party for c in Contact.find([('type', '=', 'email'), ('value', '=', email)])}
    if len(found) > 1:
        raise OrderRefused('%d parties have the e-mail %s (ids %s): merge them or remove the address from all but one'
            % (len(found), email, ', '.join(str(i) for i in sorted(found))))
    if found:
        party, = found.values()
    else:
        billing = addresses.get('billing') or {}
        party = Party(name=billing.get('name') or order.get('customers_name') or email)
        party.contact_mechanisms.new(type='email', value=email)
        address = party.addresses[0] if party.addresses else party.addresses.new()
        fill_address(address, billing, Country)
        party.save()
    # Billing and delivery: an address of the party that matches, else a new one.
    chosen = {}
    for kind in ('billing', 'delivery'):
        staged_address = addresses.get(kind)
        if not staged_address:
            continue
        match = next((a for a in party.addresses if same_address(a, staged_address)), None)
        if match is None:
            match = party.addresses.new()
            fill_address(match, staged_address, Country)
            party.save()
            match = next(a for a in party.addresses if same_address(a, staged_address))
        chosen[kind] = match
    return party, chosen


def net_price(order, line):
    """Tryton's unit price is net: a gross shop price (tax_flag 1) loses its tax rate."""
    price = Decimal(line['products_price'])
    tax = Decimal(line.get('products_tax') or 0)
    if order.get('tax_flag') == 1 and tax:
        price = price / (1 + tax / 100)
    return price.quantize(Decimal('0.0001'))


def import_order(order, lines, addresses):
    """Create the sale of one staged order; returns (reference, created)."""
    Sale = Model.get('sale.sale')
    Product = Model.get('product.product')
    reference = str(order['orders_id'])
    existing = Sale.find([('reference', '=', reference)])
    if existing:
        return erp_reference(existing[0]), False
    if not lines:
        raise OrderRefused('the order has no lines')
    products = []
    for line in lines:
        code = line.get('products_model')
        found = Product.find([('code', '=', code)]) if code else []
        if len(found) != 1:
            raise OrderRefused('line %s: %s Tryton product(s) with the code %r (the shop\'s products_model); give the shop product the code of its Tryton product'
                % (line['pos'], len(found) or 'no', code))
        products.append(found[0])
    party, chosen = party_of(order, addresses)
    sale = Sale()
    sale.party = party
    sale.reference = reference
    sale.description = 'Shop order %s' % reference
    if order.get('date_purchased'):
        sale.sale_date = order['date_purchased'].date()
    if 'billing' in chosen:
        sale.invoice_address = chosen['billing']
    if 'delivery' in chosen:
        sale.shipment_address = chosen['delivery']
    if order.get('comments'):
        sale.comment = order['comments']
    for line, product in zip(lines, products):
        sale_line = sale.lines.new()
        sale_line.product = product  # first, so Tryton's on_change sets the unit and taxes
        sale_line.quantity = float(line['quantity'])
        sale_line.unit_price = net_price(order, line)
    sale.save()
    return erp_reference(sale), True


def erp_reference(sale):
    return sale.number or 'sale.sale,%d' % sale.id


def changed_after_import(conn, schema):
    query = sql.SQL("SELECT orders_id FROM {} WHERE status = 'imported' AND shopsync_delivered_at > imported_at ORDER BY orders_id").format(sql.Identifier(schema, 'orders'))
    return [r['orders_id'] for r in rows(conn, query, ())]


def main(argv=None):
    parser = argparse.ArgumentParser(description='Import shop orders staged by shopsync into Tryton sales (proteus).')
    parser.add_argument('--database', required=True, help="trytond's database name")
    parser.add_argument('--config', help='trytond.conf (default: TRYTOND_CONFIG)')
    parser.add_argument('--staging', required=True, help='libpq connection string of the database holding the staging schema')
    parser.add_argument('--schema', default='shopsync_in', help='the staging schema (default shopsync_in)')
    parser.add_argument('--retry', action='store_true', help="also take orders left 'failed' or 'importing' (while no other import runs)")
    parser.add_argument('--limit', type=int, default=500, help='orders per run (default 500)')
    args = parser.parse_args(argv)
    if not IDENTIFIER.match(args.schema):
        parser.error('--schema: expected a name of letters, digits and _')

    pconfig.set_trytond(args.database, config_file=args.config)
    conn = psycopg2.connect(args.staging)
    summary = {'claimed': 0, 'created': 0, 'existing': 0, 'failed': 0, 'errors': {}, 'changed_after_import': []}
    try:
        for orders_id, read_version in claim(conn, args.schema, args.retry, args.limit):
            summary['claimed'] += 1
            try:
                order, lines, addresses = staged(conn, args.schema, orders_id)
                reference, created = import_order(order, lines, addresses)
            except Exception as err:  # Tryton's UserError, or OrderRefused: this order fails, the others go on
                conn.rollback()
                message = getattr(err, 'message', None) or str(err)
                summary['failed'] += 1
                summary['errors'][str(orders_id)] = message
                mark(conn, args.schema, orders_id, read_version, 'failed', error=message)
                print('order %s failed: %s' % (orders_id, message), file=sys.stderr)
                continue
            summary['created' if created else 'existing'] += 1
            mark(conn, args.schema, orders_id, read_version, 'imported', reference=reference)
            print('order %s: %s %s' % (orders_id, 'created' if created else 'already imported as', reference))
        summary['changed_after_import'] = changed_after_import(conn, args.schema)
        for orders_id in summary['changed_after_import']:
            print('order %s changed in the shop after its import: compare its sale with the staged order' % orders_id, file=sys.stderr)
    finally:
        conn.close()
    print(json.dumps(summary))
    return 1 if summary['failed'] else 0


if __name__ == '__main__':
    sys.exit(main())
