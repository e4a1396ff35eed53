/** Network address helpers. */

const LOOPBACK_NAMES = new Set(['localhost', '::1', '[::1]']);
const LOOPBACK_V4 = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/**
 * Whether a bind host or socket address only this machine can reach: localhost, ::1, 127.x.y.z
 * (also IPv4-mapped as ::ffff:127.x.y.z). A name that merely starts with "127." is not loopback.
 */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const a = address.toLowerCase();
  return LOOPBACK_NAMES.has(a) || LOOPBACK_V4.test(a.startsWith('::ffff:') ? a.slice('::ffff:'.length) : a);
}

/** A connection URL for messages: the user stays (it helps to find the account), the password never does. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^/?#@]*)@/i, (_m, scheme: string, userinfo: string) => `${scheme}${userinfo.split(':')[0]}@`).replace(/([?&]password=)[^&#]*/i, '$1***');
}
