/** The `dashboard:` block (the daemon's HTTP address: dashboard, /healthz, /readyz, /metrics). */
import { z } from 'zod';
import { isLoopback } from '../util/net.js';

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
    token: z.string().min(8, 'a dashboard token needs at least 8 characters').optional(),
  })
  .superRefine((d, ctx) => {
    if (!isLoopback(d.host) && !d.token) {
      ctx.addIssue({
        code: 'custom',
        path: ['host'],
        message: `binding ${d.host} exposes the dashboard beyond this machine; set dashboard.token (e.g. token: \${DASHBOARD_TOKEN}) or bind 127.0.0.1`,
      });
    }
  });

/** The validated `dashboard:` block. */
export type DashboardConfig = z.output<typeof dashboardConfigSchema>;
