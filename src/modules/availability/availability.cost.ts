import { daysBetween } from '../../platform/graphql/field-cost';
import { AVAILABILITY_LIMITS } from './availability.inputs';

// What availability questions cost beyond the records they answer (src/platform/graphql/
// field-cost.ts), from their arguments as a request gives them (variables not yet coerced).

const countOf = (list: unknown): number => (Array.isArray(list) ? list.length : 0);

/**
 * Candidate slots weighed per unit: each slot checks every attendee. Measured on 2 cores
 * (embedded database, 51 users): 50 users over 62 days every 5 minutes took 22.5 ms of CPU, every
 * 30 minutes 12.9 ms, 10 users every 5 minutes 10.9 ms; a record read costs 1.
 */
const SLOTS_PER_UNIT = 50;

export const SUGGESTION_COST_RULE =
  'attendees × candidate slots (days × 1440 ÷ stepMinutes) ÷ 50, plus attendees × days';

/** A suggestion's cost: its slots weighed for each attendee, and each attendee's days read. */
export function suggestionCost(args: Readonly<Record<string, unknown>>): number {
  const input = (args['input'] ?? {}) as Record<string, unknown>;
  // The caller is an attendee too.
  const attendees = countOf(input['userIds']) + 1;
  const days = daysBetween(input['from'], input['to']);
  const step =
    typeof input['stepMinutes'] === 'number' && input['stepMinutes'] > 0
      ? input['stepMinutes']
      : AVAILABILITY_LIMITS.step.default;
  const slots = Math.ceil((days * 1440) / step);
  return Math.ceil((attendees * slots) / SLOTS_PER_UNIT) + attendees * days;
}

export const FREE_BUSY_COST_RULE = '(users + resources) × days';

/** Free/busy's cost: each user's and resource's days read and expanded. */
export const freeBusyCost = (args: Readonly<Record<string, unknown>>): number =>
  (countOf(args['userIds']) + countOf(args['resourceIds'])) * daysBetween(args['from'], args['to']);
