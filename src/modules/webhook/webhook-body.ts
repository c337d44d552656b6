import {
  getNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
  isLeafType,
  isObjectType,
  parse,
} from 'graphql';
import type { Context } from './webhook.context';
import { compileOperation, type RunOperation } from '../../platform/graphql/execution';
import type { MeetingNotice } from '../meeting';
import { webhookEventType } from './webhook.events';

/** What an endpoint receives: the event, and the meeting as the endpoint's owner reads it. */
export interface WebhookBody {
  /** The event type, e.g. `meeting.participant_added`. */
  type: string;
  /** When the change was made (ISO 8601). */
  timestamp: string;
  data: {
    meetingId: string;
    /** The user the change concerns (the participant added, answering or removed), if any. */
    userId: string | null;
    /** The change's place in the change log: receivers order by it. */
    cursor: string;
    meeting: Record<string, unknown>;
  };
}

/** A meeting as the context's user reads it through GraphQL, or null if they may not (now). */
export type MeetingReader = (
  context: Context,
  meetingId: string,
) => Promise<Record<string, unknown> | null>;

/** The fields of a type a selection can name without arguments and without going deeper. */
function leafFields(type: GraphQLObjectType): string[] {
  return Object.values(type.getFields())
    .filter((field) => field.args.length === 0 && isLeafType(getNamedType(field.type)))
    .map((field) => field.name);
}

function objectType(schema: GraphQLSchema, name: string): GraphQLObjectType {
  const type = schema.getType(name);
  if (!isObjectType(type)) {
    throw new Error(`the schema has no object type ${name}`);
  }
  return type;
}

/**
 * The meeting as a body carries it: what the `meeting` query answers its reader, every field of
 * Meeting that needs no argument and goes no deeper, with its participants' (read from the
 * schema, so a field added to Meeting is in the next body), enums and times as GraphQL writes
 * them. Compiled once; run with the reader's context, so the rule that lets them see it is the
 * query's own.
 */
export function meetingReader(schema: GraphQLSchema): MeetingReader {
  const meeting = leafFields(objectType(schema, 'Meeting'));
  const participant = leafFields(objectType(schema, 'Participant'));
  const document = parse(
    `query WebhookMeeting($meetingId: UUID!) { meeting(meetingId: $meetingId) { ` +
      `${meeting.join(' ')} participants { ${participant.join(' ')} } } }`,
  );
  const compiled = compileOperation(schema, document, 'WebhookMeeting');
  if ('errors' in compiled) {
    throw new Error(`the webhook meeting document does not run: ${compiled.errors.join('; ')}`);
  }
  const run: RunOperation = compiled;
  return async (context, meetingId) => {
    const result = await run(context, { meetingId });
    const errors = result.errors ?? [];
    // Hidden from the reader (since the change): no body. Any other error fails the dispatch,
    // which runs again, rather than letting the event pass unsent.
    if (errors.some((error) => error.extensions['code'] !== 'NOT_FOUND')) {
      throw new Error(`webhook body not read: ${errors.map((e) => e.message).join('; ')}`);
    }
    const data = result.data as { meeting?: Record<string, unknown> | null } | null | undefined;
    return errors.length > 0 ? null : (data?.meeting ?? null);
  };
}

/** The body of a meeting's change as `meeting` shows it to an endpoint's owner. */
export function webhookBody(change: MeetingNotice, meeting: Record<string, unknown>): WebhookBody {
  return {
    type: webhookEventType(change.kind),
    timestamp: change.occurredAt,
    data: { meetingId: change.meetingId, userId: change.userId, cursor: change.cursor, meeting },
  };
}
