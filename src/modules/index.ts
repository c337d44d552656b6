// Written by `npm run modules:list` (scripts/modules-list.cjs) from the folders of src/modules/:
// a new module is its folder, and this file is written again; a test fails while it differs.
import { authModule } from './auth';
import { followModule } from './follow';
import { meetingModule } from './meeting';
import { nodeModule } from './node';
import { availabilityModule } from './availability';
import { userModule } from './user';
import { meetingEventsModule } from './meeting-events';
import { calendarModule } from './calendar';
import { webhookModule } from './webhook';
import { mailModule } from './mail';
import { resourceModule } from './resource';

/**
 * Every module of the service: the app assembles the schema, the data model, the context and
 * what runs beside requests from this list alone. The schema's fields come in this order
 * (schema/schema.graphql is printed in it), and each module's loaders build on those listed
 * before it: the list keeps its order, and a new module joins at the end.
 */
export const modules = [
  authModule,
  followModule,
  meetingModule,
  nodeModule,
  availabilityModule,
  userModule,
  meetingEventsModule,
  calendarModule,
  webhookModule,
  mailModule,
  resourceModule,
] as const;
