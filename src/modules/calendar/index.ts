import { CalendarResolver } from './calendar.resolver';
import type { ServiceParts } from '../../platform/composition/context';
import { defineModule } from '../../platform/composition/module';
import { calendarSettings } from './calendar.settings';
import type { MeetingService } from '../meeting';
import { CalendarFeed } from './calendar.entity';
import { type CalendarLoaders, CalendarService, type CalendarStores } from './calendar.service';
import { CalendarStore } from './calendar.store';
import { calendarDeps, type CalendarDeps, calendarHttp } from './calendar.wiring';

type CalendarParts = ServiceParts<
  CalendarStores,
  CalendarLoaders,
  Pick<CalendarDeps, 'publicUrl'>,
  { meetings: MeetingService }
>;

export type { CalendarService } from './calendar.service';
export type { CalendarEntry } from './ics';
export { PARTSTAT } from './ics';
export { itipDocument, type ItipMethod, type ItipOptions } from './itip';

/** Calendar feeds: a secret address serving the caller's meetings as iCalendar. */
export const calendarModule = defineModule({
  name: 'calendar',
  settings: calendarSettings,
  entities: [CalendarFeed],
  resolvers: [CalendarResolver],
  stores: { calendar: CalendarStore },
  services: {
    calendar: (p: CalendarParts) =>
      new CalendarService(p.stores, p.loaders, p.services.meetings, p.deps.publicUrl),
  },
  deps: calendarDeps,
  routes: calendarHttp,
});
