import { column, RecordReader, timestampColumn, type WithIsoTimestamps } from '../../db/records';
import type { Participant } from './participant.entity';

/** A participant as reads answer it: its columns as a plain object (an entity satisfies it too). */
export type ParticipantRecord = WithIsoTimestamps<
  Pick<Participant, 'id' | 'createdAt' | 'updatedAt' | 'status' | 'meetingId' | 'userId'>
>;

/** Reads participant records from columns aliased with `prefix`. */
export const participantRecords = (prefix = ''): RecordReader<ParticipantRecord> =>
  new RecordReader<ParticipantRecord>(
    {
      id: column('id'),
      createdAt: timestampColumn('created_at'),
      updatedAt: timestampColumn('updated_at'),
      status: column('status'),
      meetingId: column('meeting_id'),
      userId: column('user_id'),
    },
    prefix,
  );
