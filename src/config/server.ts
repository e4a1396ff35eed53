/** The `dashboard:` block (the daemon's HTTP address: dashboard, /healthz, /readyz, /metrics). */
import { z } from 'zod';
import { bindingProblem, MIN_TOKEN_LENGTH, normaliseAllowedHost, tokenProblem } from '../dashboard/security.js';

/** `dashboard:` — where the daemon listens. */
export const dashboardConfigSchema = z
  .strictObject({
    /** Serve the dashboard pages (the ops endpoints are always served). @default true */
    enabled: z.boolean().default(true),
    /** Interface to bind. Anything but loopback needs `token`. @default 127.0.0.1 */
    host: z.string().min(1).default('127.0.0.1'),
    /** TCP port; 0 picks a free one. @default 8080 */
    port: z.coerce.number().int().min(0).max(65535).default(8080),
    /** Bearer token the dashboard asks for; required when binding beyond loopback; at least 32 characters on any bind. */
    token: z
      .string()
      .min(MIN_TOKEN_LENGTH, { error: (issue) => tokenProblem(typeof issue.input === 'string' ? issue.input : undefined) ?? `at least ${MIN_TOKEN_LENGTH} characters` })
      .optional(),
    /** How long a dashboard sign-in lasts, in hours. @default 12 */
    sessionHours: z.number().positive().max(24 * 30).default(12),
    /** The headers of a request must arrive within this. @default 10000 */
    headersTimeoutMs: z.number().int().min(1000).default(10_000),
    /** A whole request (headers and body) must arrive within this. @default 30000 */
    requestTimeoutMs: z.number().int().min(1000).default(30_000),
    /** Connections held open at once; at the cap the one that waited longest without a whole request is closed. Keep well below the process's file limit (`ulimit -n`). @default 100 */
    maxConnections: z.number().int().min(10).default(100),
    /**
     * Host names (no scheme, no port) the daemon answers to besides localhost, 127.x.y.z and [::1]:
     * the name a reverse proxy passes on in the Host header. Every other name is refused (DNS
     * rebinding); on a public bind, an empty list lets any name through.
     */
    allowedHosts: z.array(z.string().refine((h) => normaliseAllowedHost(h) !== undefined, { message: 'expected a host name or address without scheme, port or path, like shopsync.example.com' })).optional(),
  })
  .superRefine((d, ctx) => {
    const problem = bindingProblem(d.host, d.token);
    // A short token is the field's own issue (above).
    if (problem && problem.key === 'dashboard.host') ctx.addIssue({ code: 'custom', path: [problem.key === 'dashboard.host' ? 'host' : 'token'], message: problem.message });
  });

/** The validated `dashboard:` block. */
export type DashboardConfig = z.output<typeof dashboardConfigSchema>;
