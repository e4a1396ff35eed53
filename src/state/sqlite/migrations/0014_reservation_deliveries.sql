-- When the orders pull delivered a shop order to the ERP (issue 43, `booked: { changedAfter: true }`).
-- Kept apart from the order's lines: the pull may deliver an order before a stock push has read it,
-- and the lines recorded later take their delivery time from here.
CREATE TABLE reservation_deliveries (
  shop      TEXT NOT NULL,
  orders_id BIGINT NOT NULL,
  at        TEXT NOT NULL,
  PRIMARY KEY (shop, orders_id)
);
