/** Public API of pipelines: definitions, runs, dead letters and the event stream. */
export { pipelineSchema, pipelineOptionsSchema, type PipelineDefinition, type PipelineDefinitionInput, type PipelineOptions } from './schema.js';
export { runPipeline, rangeId, parseDefinition } from './run.js';
export { previewPipeline, previewLimit, PREVIEW_DEFAULT_RECORDS, PREVIEW_MAX_RECORDS, type PipelinePreview, type PreviewedRecord, type PreviewOptions } from './preview.js';
export { retryDeadLetters, dropDeadLetters, type DeadLetterSelection } from './deadLetters.js';
export { markCrashedRuns, progressOf } from './crashed.js';
export { SyncEvents, type SyncEvent, type SyncEventType, type SyncEventOf } from './events.js';
export { contentHash, stableStringify } from './hash.js';
export { LowWaterMark } from './watermark.js';
export { countWords, countsInWords, type CountWords } from './countWords.js';
export type { MissingReport, RunSummary, RunOptions, RunMode, RunRange, RunStatusFinal, PipelineDeps, PlannedRecord, PlannedFinding, SourceProvider, SinkProvider } from './types.js';
