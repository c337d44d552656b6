import type { OperationContext } from '../../platform/composition/context';
import type { UserRecord } from '../user';
import type { CalendarService } from './calendar.service';

/** An operation's context as the calendar module's resolver and routes read it. */
export type Context = OperationContext<{ calendar: CalendarService }, unknown, UserRecord>;
