// The participants' face for the rest of the meeting module (its sub-folders reach them here).
export { ParticipantStatus } from './participant.entity';
export type { ParticipantRecord } from './participant.store';
