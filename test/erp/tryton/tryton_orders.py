"""Tryton's own view of its sales and parties, through proteus, for the orders tests.

usage: python3 tryton_orders.py <trytond.conf> <database> sales
       python3 tryton_orders.py <trytond.conf> <database> product <code> <name> <list price>

Prints one JSON object on its last line: every sale (reference, state, party with its e-mails,
the invoice and shipment addresses' cities, lines with product code, quantity and unit price) and
the number of parties per e-mail. `product` first makes a product through proteus (as
tryton_data.py's catalog does): the fix of an order whose code Tryton did not know.
"""
import json
import sys

from proteus import Model, config as pconfig


def address(a):
    return None if a is None else {'city': a.city, 'street': a.street}


def sales():
    Sale = Model.get('sale.sale')
    Contact = Model.get('party.contact_mechanism')
    out = []
    for s in Sale.find([], order=[('id', 'ASC')]):
        out.append({
            'id': s.id,
            'reference': s.reference,
            'state': s.state,
            'currency': s.currency.code,
            'party': {'id': s.party.id, 'name': s.party.name, 'emails': sorted(c.value for c in s.party.contact_mechanisms if c.type == 'email')},
            'invoice_address': address(s.invoice_address),
            'shipment_address': address(s.shipment_address),
            'lines': [{'product': l.product.code if l.product else None, 'quantity': l.quantity, 'unit_price': str(l.unit_price)} for l in s.lines],
        })
    by_email = {}
    for c in Contact.find([('type', '=', 'email')]):
        by_email.setdefault(c.value, set()).add(c.party.id)
    return {'sales': out, 'parties_by_email': {k: len(v) for k, v in sorted(by_email.items())}}


def main():
    conf, db, action = sys.argv[1:4]
    pconfig.set_trytond(db, config_file=conf)
    if action == 'product':
        from tryton_data import make_template  # beside this file
        code, name, price = sys.argv[4:7]
        make_template(name, code, [('', None)], price, 'Unit')
    elif action != 'sales':
        raise SystemExit('unknown action %s' % action)
    print(json.dumps(sales()))


if __name__ == '__main__':
    main()
