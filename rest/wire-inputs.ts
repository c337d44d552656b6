import type { GraphQLInputField, GraphQLInputObjectType } from 'graphql';

/**
 * The fields of each GraphQL input object the REST face takes. The wire format is frozen
 * (docs/rest-contract.md §5; §8 "Time": a meeting made through REST has the defaults of what
 * GraphQL added since), so a field GraphQL gains stays off REST until it is listed here; an input
 * object a route reaches that is not listed stops the start.
 */
const WIRE_FIELDS: Readonly<Record<string, readonly string[]>> = {
  MeetingInput: [
    'title',
    'type',
    'startTime',
    'location',
    'locationUrl',
    'appointedBy',
    'assignedTo',
  ],
  ParticipantInput: ['userId', 'status'],
};

/** The fields of an input object a REST client may send, in the schema's order. */
export function wireFieldsOf(type: GraphQLInputObjectType): GraphQLInputField[] {
  const kept = WIRE_FIELDS[type.name];
  if (!kept) {
    throw new Error(`rest/wire-inputs.ts: no REST fields listed for the input ${type.name}`);
  }
  return Object.values(type.getFields()).filter((field) => kept.includes(field.name));
}
