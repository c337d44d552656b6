import { type ExclusionViolation, onExclusionViolation } from '../../platform/shared/db-errors';
import { ConflictError } from '../../platform/shared/errors';
import { toIsoTimestamp } from '../../platform/sql/rows';
import { NO_OVERLAP } from './booking.store';
import type { ResourceStore } from './resource.store';

/** `(<resource id>, ["<start>","<end>"))`'s parts, as PostgreSQL prints a booking's key. */
const BOOKING_KEY = /^([0-9a-f-]{36}), [[(]"?([^",]+)"?,"?([^",)\]]+)"?[)\]]$/;

function bookingOf(key: string): { resourceId: string; start: string } | null {
  const match = BOOKING_KEY.exec(key);
  return match ? { resourceId: match[1] as string, start: toIsoTimestamp(match[2]) } : null;
}

/**
 * A booking refused because the resource is booked then: CONFLICT / RESOURCE_BUSY, naming the
 * resource (`resourceId`, and its name in the message) and the first instant both want (`at`).
 */
export async function resourceBusy(
  violation: ExclusionViolation,
  resources: Pick<ResourceStore, 'byIds'>,
): Promise<ConflictError> {
  const wanted = bookingOf(violation.key);
  const held = bookingOf(violation.existing);
  if (!wanted || !held) {
    return new ConflictError('RESOURCE_BUSY', 'A resource is booked at that time');
  }
  const at = wanted.start > held.start ? wanted.start : held.start;
  const [resource] = await resources.byIds([wanted.resourceId]);
  const name = resource?.name ?? wanted.resourceId;
  return new ConflictError('RESOURCE_BUSY', `${name} is booked at ${at}`, {
    resourceId: wanted.resourceId,
    resourceName: name,
    at,
  });
}

/**
 * Runs a write that books resources, turning the database's refusal of an overlap into
 * RESOURCE_BUSY (read with `resources`, outside the failed transaction).
 */
export const refusingOverlaps = <T>(
  resources: Pick<ResourceStore, 'byIds'>,
  write: () => Promise<T>,
): Promise<T> =>
  onExclusionViolation(write, {
    [NO_OVERLAP]: (violation) => resourceBusy(violation, resources),
  });
