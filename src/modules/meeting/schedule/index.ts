// The schedule's face for the rest of the meeting module: series, occurrences and their changes.
export { Series, seriesBound, type Timing } from './recurrence.rules';
export {
  type Occurrence,
  type OccurrenceChanged,
  type OccurrenceEdit,
  occurrencesOf,
} from './occurrence.rules';
export type { OccurrenceChange } from './occurrence.entity';
export type { CancelOccurrenceInput, MoveOccurrenceInput } from './occurrence.inputs';
export { type OccurrenceLoaders, OccurrenceStore } from './occurrence.store';
