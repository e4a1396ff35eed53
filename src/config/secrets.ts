/**
 * Which values of the config are secrets: keys that name one (`token`, `clientSecret`), credentials
 * inside URLs and headers, alert channels. Log lines, messages and `config print` are scrubbed of them.
 */
import { shopsOf, type Config } from './schema.js';

const SECRET_WORD = /token|secret|password|passwd|api[-_]?key|credential/i;
/** A key whose value is a secret (`token`, `clientSecret`, `X-Api-Key`), but not one naming where a secret is used (`tokenUrl`). */
export const isSecretKey = (key: string): boolean => SECRET_WORD.test(key) && !/url$/i.test(key);
const DUMMY_URL = 'http://x';

/** The text is, or holds, a secret the config is known to hold so far (a value read from a file is one). */
export function isSecretText(text: string, secrets: ReadonlySet<string>): boolean {
  for (const s of secrets) if (s.length >= 4 && text.includes(s)) return true;
  return false;
}

/** Request headers whose values describe content, never credentials. */
const PLAIN_HEADERS = new Set(['accept', 'accept-language', 'content-type', 'user-agent']);

/**
 * Add the secrets a validated config holds even when they were not interpolated: shop credentials,
 * passwords and keys inside URLs, ERP HTTP auth and headers (connection and pipeline), alert
 * channels and the dashboard token.
 */
export function collectKnownSecrets(config: Config, secrets: Set<string>): void {
  const add = (s: unknown) => {
    if (typeof s === 'string' && s) secrets.add(s);
  };
  for (const shop of Object.values(shopsOf(config))) {
    add(shop.token);
    add(shop.oauth?.clientSecret);
    addUrlSecrets(shop.baseUrl, add);
    if (shop.oauth?.tokenUrl) addUrlSecrets(shop.oauth.tokenUrl, add);
  }
  if (config.state.url) addUrlSecrets(config.state.url, add);
  add(config.dashboard.token);
  add(config.alerts.webhook?.secret);
  if (config.alerts.webhook) {
    // Chat webhooks (Slack, Teams, Discord) carry their credential in the path: the whole URL is one.
    add(config.alerts.webhook.url);
    addUrlSecrets(config.alerts.webhook.url, add);
  }
  add(config.alerts.email?.password);
  for (const conn of Object.values(config.connections)) {
    const c = conn as { password?: unknown; url?: unknown; baseUrl?: unknown; auth?: { value?: unknown }; headers?: Record<string, unknown> };
    add(c.password);
    addCredential(c.auth?.value, add);
    addHeaders(c.headers, add);
    if (typeof c.url === 'string') addUrlSecrets(c.url, add);
    if (typeof c.baseUrl === 'string') addUrlSecrets(c.baseUrl, add);
  }
  for (const p of config.pipelines) {
    add(p.trigger?.hook?.secret);
    for (const block of [p.source, p.sink] as ({ headers?: Record<string, unknown>; path?: unknown } | undefined)[]) {
      addHeaders(block?.headers, add);
      // An HTTP path may be a whole URL, or carry a key in its query.
      if (typeof block?.path === 'string') addUrlSecrets(block.path, add);
    }
  }
}

/**
 * Any configured header may carry a credential (X-Api-Key, a cookie): every value is redacted, but
 * for the few that only describe the content (redacting `application/json` helps nobody).
 */
function addHeaders(headers: Record<string, unknown> | undefined, add: (s: unknown) => void): void {
  for (const [name, v] of Object.entries(headers ?? {})) if (!PLAIN_HEADERS.has(name.toLowerCase())) addCredential(v, add);
}

/**
 * A credential as sent (`Bearer abc`), and the credential alone (`abc`), which is what an error
 * message or a token endpoint's answer shows; for Basic, the password inside it too.
 */
function addCredential(value: unknown, add: (s: unknown) => void): void {
  if (typeof value !== 'string') return;
  add(value);
  const m = /^\s*([A-Za-z][\w.-]*)\s+(\S+)\s*$/.exec(value);
  if (!m) return;
  add(m[2]);
  if (m[1]!.toLowerCase() === 'basic') {
    const decoded = Buffer.from(m[2]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon >= 0) add(decoded.slice(colon + 1));
  }
}

/** Query parameters whose values are credentials (`api_key`, `token`, `password`, `sig`…). */
const SECRET_PARAM = /token|secret|pass|pwd|key|sig|auth|cred|session/i;

/** The password inside a URL (as written and decoded) and the values of its credential query parameters. */
function addUrlSecrets(url: string, add: (s: unknown) => void): void {
  let parsed: URL;
  try {
    parsed = new URL(url, DUMMY_URL);
  } catch {
    return; // Not a URL we can read secrets from.
  }
  if (parsed.password) {
    add(parsed.password);
    try {
      add(decodeURIComponent(parsed.password));
    } catch {
      // A malformed escape: the raw form is added.
    }
  }
  for (const [name, value] of parsed.searchParams) if (SECRET_PARAM.test(name)) add(value);
}
