import type { TimeSpan } from '../../platform/shared/time-zone';
import {
  type BookingStore,
  RESOURCE_LIMITS,
  type ResourceFilter,
  resourceNotFound,
  type ResourceRecord,
  type ResourceTime,
} from '../resource';
import { AVAILABILITY_LIMITS } from './availability.inputs';
import { BusyKind, cut, type FreeBusy } from './busy-time';
import type { RoomTime } from './suggestions';
import { workingSpans } from './working-time';

/*
 * Rooms and other resources in availability answers: a resource's free/busy entry, and the rooms
 * a suggestion may take.
 */

/** A resource's entry of free/busy: its bookings cut to the window, and its working hours. */
export function resourceEntry(
  found: readonly ResourceTime[],
  id: string,
  window: TimeSpan,
): FreeBusy {
  const time = found.find((entry) => entry.resource.id === id);
  if (!time) {
    throw resourceNotFound();
  }
  const { resource } = time;
  return {
    userId: null,
    resourceId: id,
    busy: time.busy
      .slice(0, AVAILABILITY_LIMITS.rangesPerUser)
      .map((span) => ({ ...cut(span, window), kind: BusyKind.BUSY })),
    workingHours: resource.workingHours
      ? workingSpans(resource.timeZone, resource.workingHours, window).slice(
          0,
          AVAILABILITY_LIMITS.rangesPerUser,
        )
      : null,
  };
}

/**
 * The rooms a suggestion may take, smallest first: those the filter takes that hold `attendees`
 * (and its minCapacity), with their bookings and working hours in the window (one statement).
 */
export async function roomsFor(
  bookings: Pick<BookingStore, 'fitting'>,
  filter: ResourceFilter,
  attendees: number,
  window: TimeSpan,
): Promise<RoomTime<ResourceRecord>[]> {
  const capacity = Math.max(attendees, filter.minCapacity ?? 1);
  const found = await bookings.fitting(filter, capacity, window, RESOURCE_LIMITS.roomsWeighed);
  return found.map(({ resource, busy }) => ({
    room: resource,
    busy,
    working: resource.workingHours
      ? workingSpans(resource.timeZone, resource.workingHours, window)
      : null,
  }));
}
