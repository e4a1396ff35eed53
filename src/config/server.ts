/** The `dashboard:` block (the daemon's HTTP address: dashboard, /healthz, /readyz, /metrics). */
import { z } from 'zod';
import { bindingProblem, MIN_TOKEN_LENGTH, normaliseAllowedHost } from '../dashboard/security.js';

/** `dashboard:` — where the daemon listens. */
export const dashboardConfigSchema = z
  .strictObject({
    /** Serve the dashboard pages (the ops endpoints are always served). @default true */
    enabled: z.boolean().default(true),
    /** Interface to bind. Anything but loopback needs `token`. @default 127.0.0.1 */
    host: z.string().min(1).default('127.0.0.1'),
    /** TCP port; 0 picks a free one. @default 8080 */
    port: z.coerce.number().int().min(0).max(65535).default(8080),
    /** Bearer token the dashboard asks for; required when binding beyond loopback. */
    token: z.string().min(MIN_TOKEN_LENGTH, `a dashboard token needs at least ${MIN_TOKEN_LENGTH} characters`).optional(),
    /**
     * Host names (no scheme, no port) the daemon answers to besides localhost, 127.x.y.z and [::1]:
     * the name a reverse proxy passes on in the Host header. Every other name is refused (DNS
     * rebinding); on a public bind, an empty list lets any name through.
     */
    allowedHosts: z.array(z.string().refine((h) => normaliseAllowedHost(h) !== undefined, { message: 'expected a host name or address without scheme, port or path, like shopsync.example.com' })).optional(),
  })
  .superRefine((d, ctx) => {
    const problem = bindingProblem(d.host, d.token);
    if (problem) ctx.addIssue({ code: 'custom', path: [problem.key === 'dashboard.host' ? 'host' : 'token'], message: problem.message });
  });

/** The validated `dashboard:` block. */
export type DashboardConfig = z.output<typeof dashboardConfigSchema>;
