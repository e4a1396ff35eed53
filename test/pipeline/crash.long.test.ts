/**
 * The crash-safety story of ./crashStory.ts at full size: 5,000 products, 500 orders, 200 manufacturers
 * (20 more each round), twelve SIGKILLs. Minutes of work, so it runs in `npm run test:long`
 * (which `.ci/run` calls), not in `npm test`, where `crash.test.ts` tells the same story smaller.
 */
import { crashStory } from './crashStory.js';

crashStory({ products: 5000, orders: 500, kills: 12, manufacturers: 200, newManufacturersPerRound: 20, changedPerRound: 300 });
