import { Entity, ManyToOne, Property, Unique } from '@mikro-orm/decorators/legacy';
import { BaseEntity } from '../../../platform/shared/base.entity';
import { Meeting } from '../meeting.entity';

/**
 * One occurrence of a series changed on its own: cancelled, or moved to `startTime`. Named by the
 * start the rule gives it (`originalStartTime`); rescheduling the series drops these.
 */
@Entity({ tableName: 'meeting_occurrence_changes' })
@Unique({
  name: 'meeting_occurrence_changes_original_unique',
  properties: ['meetingId', 'originalStartTime'],
})
export class OccurrenceChange extends BaseEntity<'startTime' | 'cancelled'> {
  @ManyToOne(() => Meeting, { mapToPk: true, fieldName: 'meeting_id', deleteRule: 'cascade' })
  meetingId!: string;

  @Property({ type: 'datetime' })
  originalStartTime!: Date;

  /** Where the occurrence was moved; null where the rule put it. */
  @Property({ type: 'datetime', nullable: true })
  startTime: Date | null = null;

  @Property({ default: false })
  cancelled: boolean = false;
}
