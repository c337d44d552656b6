import { column, RecordReader, timestampColumn, type WithIsoTimestamps } from '../../db/records';
import type { Follow } from './follow.entity';

/** A follow as reads answer it: its columns as a plain object (an entity satisfies it too). */
export type FollowRecord = WithIsoTimestamps<
  Pick<Follow, 'id' | 'createdAt' | 'updatedAt' | 'followerId' | 'followingId'>
>;

/** Reads follow records from columns aliased with `prefix`. */
export const followRecords = (prefix = ''): RecordReader<FollowRecord> =>
  new RecordReader<FollowRecord>(
    {
      id: column('id'),
      createdAt: timestampColumn('created_at'),
      updatedAt: timestampColumn('updated_at'),
      followerId: column('follower_id'),
      followingId: column('following_id'),
    },
    prefix,
  );
