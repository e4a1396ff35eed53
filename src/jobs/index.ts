/**
 * Pipeline runs as jobs of graphile-worker when the state is in PostgreSQL, so `shopsync run` can
 * run as several replicas: `names` (task, lane queues, job keys), `store` (adding, listing and
 * repairing jobs), `engine` (the worker of one replica), `heartbeat` (replica liveness, freeing a
 * dead replica's jobs), `replica` (what the daemon starts), `overview` (status and dashboard).
 */
export { jobsSchemaOf, laneQueue, RUN_TASK, runJobKey } from './names.js';
export { JobStore, JOB_STATES, type JobInfo, type JobState, type RunReason } from './store.js';
export { replicaName } from './heartbeat.js';
export { startReplica, type Replica } from './replica.js';
export { ageText, replicasOverview, type JobView, type ReplicasOverview, type ReplicaView } from './overview.js';
