"""Make the test's Tryton data through proteus (Tryton's own API) and print Tryton's own figures.

usage: python3 tryton_data.py <trytond.conf> <database> <action>
(actions: setup, price, move, new_product, reuse, resolve, ean_removed, ean_deleted, code_changed,
coffee, figures)

Every action prints one JSON object on its last line: the products as Tryton computes them
(name, code, list price, EAN, active, and `quantity` of the warehouse, proteus `Product.quantity`
inside `config.context(locations=[warehouse])`).  No SQL is written here: whatever the test
reads from the database was written by Tryton.
"""
import datetime
import json
import sys
from decimal import Decimal

from proteus import Model, Wizard, config as pconfig
from stdnum import ean as stdnum_ean


def ean(prefix12):
    return prefix12 + stdnum_ean.calc_check_digit(prefix12)


# (template name, template code, [(variant suffix, EAN or None)], list price, unit)
CATALOG = [
    ('Kettle', 'K-100', [('', ean('400000000001'))], '24.90', 'Unit'),
    ('T-Shirt', 'TS-', [('S', ean('400000000002')), ('M', ean('400000000003')), ('L', None)], '15.00', 'Unit'),
    ('Coffee beans', 'CB-1', [('', ean('400000000004'))], '12.49', 'Kilogram'),
    ('Old lamp', 'L-7', [('', ean('400000000005'))], '30.00', 'Unit'),
    ('Mug', 'MUG-1', [('', ean('400000000006'))], '7.50', 'Unit'),
    # Enough articles that retiring one stays under the mass-deletion guard's 5 %.
    ('Screw M4', 'SCR-', [(str(n), None) for n in range(10, 42, 2)], '0.20', 'Unit'),
]


def connect(conf, db):
    cfg = pconfig.set_trytond(db, config_file=conf)
    return cfg


def company_and_warehouse():
    Company = Model.get('company.company')
    Location = Model.get('stock.location')
    company, = Company.find()
    warehouse, = Location.find([('code', '=', 'WH'), ('type', '=', 'warehouse')])
    return company, warehouse


def products_by_code(active_test=True):
    Product = Model.get('product.product')
    with pconfig.get_config().set_context(active_test=active_test):
        return Product.find([], order=[('id', 'ASC')])


# Tryton's scenario helpers (trytond.modules.*.tests.tools) import its unit-test package, which
# wants a DB_NAME of its own: the few steps they take are written out here.
def create_company(name, currency_code):
    Party = Model.get('party.party')
    Currency = Model.get('currency.currency')
    User = Model.get('res.user')
    currency = Currency(name='Euro', symbol='€', code=currency_code, rounding=Decimal('0.01'))
    currency.save()
    party = Party(name=name)
    party.save()
    wizard = Wizard('company.company.config')
    wizard.execute('company')
    wizard.form.party = party
    wizard.form.currency = currency
    wizard.execute('add')
    cfg = pconfig.get_config()
    cfg._context = User.get_preferences(True, {})


def create_chart(company):
    AccountTemplate = Model.get('account.account.template')
    ModelData = Model.get('ir.model.data')
    Account = Model.get('account.account')
    data, = ModelData.find([('module', '=', 'account'), ('fs_id', '=', 'account_template_root_en')], limit=1)
    wizard = Wizard('account.create_chart')
    wizard.execute('account')
    wizard.form.account_template = AccountTemplate(data.db_id)
    wizard.form.company = company
    wizard.execute('create_account')
    accounts = {}
    for kind in ['receivable', 'payable', 'revenue', 'expense']:
        accounts[kind], = Account.find([('type.%s' % kind, '=', True), ('company', '=', company.id)], limit=1)
    wizard.form.account_receivable = accounts['receivable']
    wizard.form.account_payable = accounts['payable']
    wizard.execute('create_properties')
    return accounts


def setup():
    Party = Model.get('party.party')
    create_company('Shopsync Test GmbH', 'EUR')
    company, warehouse = company_and_warehouse()
    accounts = create_chart(company)

    Category = Model.get('product.category')
    category = Category(name='Goods', accounting=True)
    category.account_revenue = accounts['revenue']
    category.account_expense = accounts['expense']
    category.save()

    supplier = Party(name='Supplier AG')
    supplier.save()
    customer = Party(name='Customer Erika')
    customer.save()

    Product = Model.get('product.product')
    for name, code, variants, price, unit in CATALOG:
        make_template(name, code, variants, price, unit)

    storage = location('STO')
    by_code = {p.code: p for p in Product.find([])}

    # Stock through an inventory...
    inventory_of(storage, [('K-100', 10), ('TS-S', 5), ('TS-M', 7), ('TS-L', 0), ('CB-1', 0.1),
        ('MUG-1', 3), ('L-7', 2), ('SCR-10', 500), ('SCR-12', 250)], by_code)

    # ... a supplier receipt ...
    receive([('K-100', 5), ('TS-L', 4)], by_code)

    # ... and a shipped sale: 2 kettles and 1 T-shirt M leave the warehouse.
    Sale = Model.get('sale.sale')
    sale = Sale(party=customer, invoice_method='manual', shipment_method='order')
    for code, qty in [('K-100', 2), ('TS-M', 1)]:
        line = sale.lines.new()
        line.product = by_code[code]  # set one by one, so Tryton's on_change fills the unit price
        line.quantity = qty
    sale.click('quote')
    sale.click('confirm')
    sale.reload()
    assert sale.state == 'processing', sale.state
    ship, = sale.shipments
    assert ship.click('assign_try'), 'the sale shipment could not be assigned'
    ship.click('pick')
    ship.click('pack')
    ship.click('done')
    assert ship.state == 'done', ship.state


def make_template(name, code, variants, price, unit):
    Uom = Model.get('product.uom')
    Template = Model.get('product.template')
    Category = Model.get('product.category')
    category, = Category.find([('name', '=', 'Goods')])
    uom, = Uom.find([('name', '=', unit)])
    template = Template(name=name, code=code, default_uom=uom, type='goods',
        salable=True, list_price=Decimal(price), account_category=category)
    template.products.pop()  # the default variant; ours follow
    for suffix, code13 in variants:
        product = template.products.new(suffix_code=suffix)
        if code13:
            product.identifiers.new(type='ean', code=code13)
    template.save()
    return template


def location(code):
    Location = Model.get('stock.location')
    found, = Location.find([('code', '=', code)])
    return found


def product(code, active_test=True):
    Product = Model.get('product.product')
    with pconfig.get_config().set_context(active_test=active_test):
        found, = Product.find([('code', '=', code)])
    return found


def inventory_of(storage, lines, by_code):
    Inventory = Model.get('stock.inventory')
    inventory = Inventory(location=storage)
    for code, qty in lines:
        line = inventory.lines.new(product=by_code[code])
        line.quantity = qty
    inventory.click('confirm')
    assert inventory.state == 'done', inventory.state


def receive(lines, by_code):
    """A supplier shipment received and done: one move per line into the warehouse."""
    Party = Model.get('party.party')
    Shipment = Model.get('stock.shipment.in')
    company, warehouse = company_and_warehouse()
    supplier, = Party.find([('name', '=', 'Supplier AG')])
    shipment = Shipment(supplier=supplier, warehouse=warehouse)
    for code, qty in lines:
        p = by_code[code]
        shipment.incoming_moves.new(product=p, uom=p.default_uom, quantity=qty,
            from_location=location('SUP'), to_location=shipment.warehouse.input_location,
            unit_price=Decimal('1'), currency=company.currency)
    shipment.click('receive')
    shipment.click('done')
    assert shipment.state == 'done', shipment.state


def price():
    """The kettle's list price changes."""
    kettle = product('K-100')
    kettle.template.list_price = Decimal('19.99')
    kettle.template.save()


def move():
    """Stock moves: 8 mugs received from the supplier."""
    receive([('MUG-1', 8)], {'MUG-1': product('MUG-1')})


def new_product():
    """A new product with its EAN and a first receipt."""
    make_template('Teapot', 'TP-1', [('', ean('400000000008'))], '29.90', 'Unit')
    receive([('TP-1', 6)], {'TP-1': product('TP-1')})


def reuse():
    """The lamp goes out of the range and its successor gets its code (Tryton's EXCLUDE on the
    code holds for active products only)."""
    old_lamp = product('L-7')
    old_lamp.active = False  # an inactive template may have no active variant
    old_lamp.save()
    old_template = old_lamp.template
    old_template.active = False
    old_template.save()
    make_template('New lamp', 'L-7', [('', ean('400000000007'))], '35.00', 'Unit')


def resolve():
    """The retired lamp gets a code of its own, as the refusal's message asks."""
    with pconfig.get_config().set_context(active_test=False):
        Product = Model.get('product.product')
        old_lamp, = Product.find([('code', '=', 'L-7'), ('active', '=', False)])
        old_template = old_lamp.template
        old_template.code = 'L-7-OLD'
        old_template.save()


def ean_removed():
    """The EAN removed from the variant, as the client's form does (the product is written)."""
    shirt_s = product('TS-S')
    shirt_s.identifiers.remove(shirt_s.identifiers[0])  # remove() deletes a record pop() would only unlink
    shirt_s.save()


def ean_deleted():
    """An identifier deleted on its own (not through its product): no change time moves."""
    Identifier = Model.get('product.identifier')
    shirt_m = product('TS-M')
    found, = Identifier.find([('product', '=', shirt_m.id), ('type', '=', 'ean')])
    found.delete()


def code_changed():
    """The mug gets a new article number."""
    mug = product('MUG-1')
    mug.template.code = 'MUG-2'
    mug.template.save()


def coffee():
    """0.2 kg of coffee received: with the 0.1 kg of the inventory, two double precision moves."""
    receive([('CB-1', 0.2)], {'CB-1': product('CB-1')})


ACTIONS = {f.__name__: f for f in [setup, price, move, new_product, reuse, resolve, ean_removed,
    ean_deleted, code_changed, coffee]}


def figures():
    company, warehouse = company_and_warehouse()
    out = []
    with pconfig.get_config().set_context(locations=[warehouse.id], active_test=False):
        Product = Model.get('product.product')
        for p in Product.find([], order=[('id', 'ASC')]):
            eans = [i.code for i in p.identifiers if i.type == 'ean']
            out.append({
                'id': p.id,
                'code': p.code,
                'name': p.name,
                'list_price': str(p.list_price),
                'ean': eans[0] if eans else None,
                'active': bool(p.active),
                'quantity': p.quantity,
                'uom': p.default_uom.name,
            })
    return {'warehouse': warehouse.id, 'company_currency': company.currency.code, 'products': out}


def main():
    conf, db, action = sys.argv[1:4]
    connect(conf, db)
    if action in ACTIONS:
        ACTIONS[action]()
    elif action != 'figures':
        raise SystemExit('unknown action %s' % action)
    print(json.dumps(figures()))


if __name__ == '__main__':
    main()
