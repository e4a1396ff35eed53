/** How fast shopsync talks to a shop: the adaptive (AIMD) controller and its snapshot, and the budget shared by replicas. */
export { AdaptiveRate, type AdaptiveRateSettings, type RateSignal, type RateSnapshot } from './controller.js';
export { SentRequests, SENT_WINDOW_SECONDS } from './sent.js';
export * from './shared/index.js';
