import type { LiveContext } from '../../platform/composition/context';
import type { ChangeNotice, MeetingContext } from '../meeting';

/**
 * An operation's context as meeting events read it: the meeting module's, with the events of a
 * subscription's WebSocket.
 */
export type Context = LiveContext<
  MeetingContext['services'],
  MeetingContext['loaders'],
  NonNullable<MeetingContext['auth']['user']>,
  ChangeNotice
>;
