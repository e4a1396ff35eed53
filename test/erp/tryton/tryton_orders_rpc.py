"""Tryton's side of the JSON-RPC orders test (test/erp/tryton/orders-rpc.test.ts), through proteus.

usage: python3 tryton_orders_rpc.py <trytond.conf> <database> <action> [args...]
actions:
  customer <email> <name>   a party with an e-mail contact mechanism and an address; prints its ids
  sales                     every sale with its lines as Tryton holds them
  parties <email>           the parties with that e-mail contact mechanism
  expire_sessions           delete every ir.session (trytond's ORM), as trytond's session timeout would

Every action prints one JSON object on its last line.  No SQL is written here.
"""
import json
import sys

from proteus import Model, config as pconfig

from tryton_data import company_and_warehouse, connect


def customer(email, name):
    Party = Model.get('party.party')
    party = Party(name=name)
    party.contact_mechanisms.new(type='email', value=email)
    address = party.addresses[0] if party.addresses else party.addresses.new()
    address.street = 'Hauptstr. 1'
    address.postal_code = '10115'
    address.city = 'Berlin'
    party.save()
    company, _ = company_and_warehouse()
    return {'party': party.id, 'address': party.addresses[0].id, 'company': company.id}


def sales():
    Sale = Model.get('sale.sale')
    out = []
    for s in Sale.find([], order=[('id', 'ASC')]):
        out.append({
            'id': s.id,
            'reference': s.reference,
            'party': s.party.id if s.party else None,
            'state': s.state,
            'lines': [{
                'product': l.product.code if l.product else None,
                'quantity': l.quantity,
                'unit': l.unit.name if l.unit else None,
                'unit_price': str(l.unit_price) if l.unit_price is not None else None,
            } for l in s.lines],
        })
    return {'sales': out}


def parties(email):
    Party = Model.get('party.party')
    return {'parties': [p.id for p in Party.find([('contact_mechanisms.value', '=', email)])]}


def expire_sessions(db):
    # ir.session is not open to RPC (proteus goes through it): trytond's own ORM, as its timeout check does.
    from trytond.pool import Pool
    from trytond.transaction import Transaction
    with Transaction().start(db, 0) as transaction:
        Session = Pool().get('ir.session')
        found = Session.search([])
        Session.delete(found)
        transaction.commit()
    return {'deleted': len(found)}


def main():
    conf, db, action = sys.argv[1:4]
    args = sys.argv[4:]
    connect(conf, db)
    if action == 'customer':
        result = customer(*args)
    elif action == 'sales':
        result = sales()
    elif action == 'parties':
        result = parties(*args)
    elif action == 'expire_sessions':
        result = expire_sessions(db)
    else:
        raise SystemExit('unknown action %s' % action)
    print(json.dumps(result))


if __name__ == '__main__':
    main()
