import { column, RecordReader, timestampColumn, type WithIsoTimestamps } from '../../db/records';
import type { Meeting } from './meeting.entity';

/** A meeting as reads answer it: its columns as a plain object (an entity satisfies it too). */
export type MeetingRecord = WithIsoTimestamps<
  Pick<
    Meeting,
    | 'id'
    | 'createdAt'
    | 'updatedAt'
    | 'title'
    | 'startTime'
    | 'location'
    | 'type'
    | 'status'
    | 'locationUrl'
    | 'ownerId'
    | 'appointedById'
    | 'assignedToId'
  >
>;

/** Reads meeting records from columns aliased with `prefix`. */
export const meetingRecords = (prefix = ''): RecordReader<MeetingRecord> =>
  new RecordReader<MeetingRecord>(
    {
      id: column('id'),
      createdAt: timestampColumn('created_at'),
      updatedAt: timestampColumn('updated_at'),
      title: column('title'),
      startTime: timestampColumn('start_time'),
      location: column('location'),
      type: column('type'),
      status: column('status'),
      locationUrl: column('location_url'),
      ownerId: column('owner_id'),
      appointedById: column('appointed_by_id'),
      assignedToId: column('assigned_to_id'),
    },
    prefix,
  );
