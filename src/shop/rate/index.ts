/** How fast shopsync talks to a shop: the adaptive (AIMD) controller and its snapshot. */
export { AdaptiveRate, type AdaptiveRateSettings, type RateSignal, type RateSnapshot } from './controller.js';
