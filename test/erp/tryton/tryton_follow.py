"""Tryton's side of the follow tests (test/erp/tryton/follow-*.test.ts), through proteus.

usage: python3 tryton_follow.py <trytond.conf> <database> <action> [args...]
actions:
  customer <email> <name>   a party with an e-mail contact mechanism and an address (tryton_orders_rpc.py's)
  sales                     every sale: id, reference, number, state, lines (as Tryton holds them)
  advance <sale id> <quote|confirm|cancel>
                            what a person does in Tryton: the sale's addresses from its party, then
                            click quote (and confirm: trytond, without a queue worker, processes it at once
                            and makes its customer shipment; invoicing manual, as no accounts exist),
                            or click cancel

Every action prints one JSON object on its last line.  No SQL is written here.
"""
import json
import sys

from proteus import Model

from tryton_data import connect
from tryton_orders_rpc import customer


def sales():
    Sale = Model.get('sale.sale')
    return {'sales': [{
        'id': s.id,
        'reference': s.reference,
        'number': s.number,
        'state': s.state,
        'lines': len(s.lines),
    } for s in Sale.find([], order=[('id', 'ASC')])]}


def advance(sale_id, until):
    Sale = Model.get('sale.sale')
    sale = Sale(int(sale_id))
    if until == 'cancel':
        sale.click('cancel')
        sale.reload()
        return {'id': sale.id, 'number': sale.number, 'state': sale.state}
    address = sale.party.addresses[0]
    sale.invoice_address = address
    sale.shipment_address = address
    # Invoicing needs accounts this database has not; the shipment is made on confirm, as a shop's would be.
    sale.invoice_method = 'manual'
    sale.shipment_method = 'order'
    sale.save()
    sale.click('quote')
    if until == 'confirm':
        sale.click('confirm')
    sale.reload()
    return {'id': sale.id, 'number': sale.number, 'state': sale.state, 'shipments': len(sale.shipments)}


def main():
    conf, db, action = sys.argv[1:4]
    args = sys.argv[4:]
    connect(conf, db)
    if action == 'customer':
        result = customer(*args)
    elif action == 'sales':
        result = sales()
    elif action == 'advance':
        result = advance(*args)
    else:
        raise SystemExit('unknown action %s' % action)
    print(json.dumps(result))


if __name__ == '__main__':
    main()
