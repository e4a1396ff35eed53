/** The one file of rate-limiter-flexible the limiter loads (limiter.ts): the package's RateLimiterRes class. */
declare module 'rate-limiter-flexible/lib/RateLimiterRes.js' {
  import { RateLimiterRes } from 'rate-limiter-flexible';
  export default RateLimiterRes;
}
