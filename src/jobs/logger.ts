/** The job engine's log lines through our pino logger (never its console logger). */
import { Logger as WorkerLogger, type LogFunctionFactory } from 'graphile-worker';
import type { Logger } from '../log.js';

/**
 * A graphile-worker logger writing to `logger`. Its `info` lines (one per job started and
 * completed) go to debug: shopsync logs each run itself. Only the scope's plain fields are kept;
 * the metadata of its lines holds whole job and worker objects.
 */
export function workerLogger(logger: Logger): WorkerLogger {
  const factory: LogFunctionFactory = (scope) => {
    const child = logger.child({ component: 'jobs', ...(scope.workerId ? { workerId: scope.workerId } : {}), ...(scope.jobId ? { jobId: scope.jobId } : {}) });
    return (level, message) => {
      if (level === 'error') child.error(message);
      else if (level === 'warning') child.warn(message);
      else child.debug(message);
    };
  };
  return new WorkerLogger(factory);
}
