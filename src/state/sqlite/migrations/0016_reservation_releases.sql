-- Shop orders that no longer hold stock (issue 44: cancelled in the shop, or deleted), kept apart
-- from their lines as the deliveries are: an order may be released before a stock push read its
-- lines, and lines recorded later take the release from here instead of counting as reserved.
CREATE TABLE reservation_releases (
  shop      TEXT NOT NULL,
  orders_id BIGINT NOT NULL,
  at        TEXT NOT NULL,
  PRIMARY KEY (shop, orders_id)
);
