/**
 * Crash safety under repeated SIGKILLs of the pushing process, on a SQLite and a PostgreSQL state
 * (./crashStory.ts tells the story): 1,500 products, 150 orders, 200 manufacturers, at least ten kills.
 * The same story at 5,000 products and 500 orders is `crash.long.test.ts` (`npm run test:long`).
 */
import { crashStory } from './crashStory.js';

crashStory({ products: 1500, orders: 150, kills: 10, manufacturers: 100, newManufacturersPerRound: 10, changedPerRound: 150 });
