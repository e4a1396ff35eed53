/** The `alerts:` block of `shopsync.yaml`: where incidents are sent, and when a pipeline counts as stopped. */
import { z } from 'zod';

const positiveInt = z.coerce.number().int().positive();

/** A generic webhook: a JSON body per message, optionally signed. */
export const webhookSchema = z.strictObject({
  url: z.url({ error: 'expected an http(s) URL for alerts.webhook.url' }),
  /** HMAC-SHA256 key; the body's signature goes in `X-Shopsync-Signature: sha256=<hex>`. */
  secret: z.string().min(8).optional(),
  /** Attempts after the first when the receiver fails (backoff doubles from 500 ms). @default 3 */
  retries: z.coerce.number().int().min(0).max(10).default(3),
  timeoutMs: positiveInt.default(10_000),
});

/** E-mail over SMTP (nodemailer). */
export const emailSchema = z.strictObject({
  host: z.string().min(1),
  port: positiveInt.max(65535).default(587),
  /** TLS from the start (port 465); otherwise STARTTLS when the server offers it. @default false */
  secure: z.boolean().default(false),
  user: z.string().min(1).optional(),
  password: z.string().min(1).optional(),
  /** Accept a server certificate that does not verify (a local relay with a self-signed one); the login then travels to whoever answers. @default false */
  allowUntrustedCertificate: z.boolean().default(false),
  from: z.string().min(3),
  to: z.array(z.string().min(3)).min(1),
});

/** `alerts:` */
export const alertsConfigSchema = z
  .strictObject({
    webhook: webhookSchema.optional(),
    email: emailSchema.optional(),
    /** A pipeline with a schedule but no successful run for this long is "silently stopped". @default 120 */
    staleAfterMinutes: positiveInt.default(120),
    /** An ERP transaction open this long holds the cursor back (docs/connectors.md, "Cursors that never skip"): a forgotten transaction is a fault to fix in the ERP. @default 15 */
    watermarkHeldMinutes: positiveInt.default(15),
    /** At most this many messages per hour over all incidents, from all replicas together (the rest are logged, not sent). @default 30 */
    maxPerHour: positiveInt.default(30),
  })
  .prefault({});

/** The validated `alerts:` block. */
export type AlertsConfig = z.output<typeof alertsConfigSchema>;
