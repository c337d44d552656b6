import type { OperationContext } from '../../platform/composition/context';
import type { CalendarService } from '../calendar';
import type { UserRecord } from '../user';
import type { MailService } from './mail.service';

/**
 * An operation's context as the mail module's resolver and routes read it, and its dispatcher,
 * which reads meetings as their owner's calendar shows them.
 */
export type Context = OperationContext<
  { mail: MailService; calendar: CalendarService },
  unknown,
  UserRecord
>;
