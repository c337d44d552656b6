import {
  type ArgumentNode,
  type DocumentNode,
  type ExecutionArgs,
  type FieldNode,
  Kind,
  type OperationDefinitionNode,
  getOperationAST,
  GraphQLError,
  type GraphQLFormattedError,
  type GraphQLSchema,
  OperationTypeNode,
  parse,
  specifiedRules,
  validate,
  type ValidationRule,
} from 'graphql';
import { CloseCode } from 'graphql-ws';
import type { Logger } from 'pino';
import type { SubscriptionLimits } from './live.settings';
import type { AuthContext, RequestInfo } from '../auth/tokens';
import { GRAPHQL_LIMITS } from '../graphql/armor';
import { assertWithinNodeLimit } from '../graphql/node-limit';
import { assertWithinCost } from '../graphql/operation-cost';
import { apqHashOf, type TrustedDocuments } from '../graphql/trusted-documents';
import { variableFailure } from '../graphql/variable-check';
import type { LiveMetrics } from '../observability/metrics';
import {
  DocumentNotAllowedError,
  LiveLimitError,
  QueryTooCostlyError,
  QueryTooLargeError,
  ServiceUnavailableError,
  WrongTransportError,
} from '../shared/errors';
import type { ChangeDelivery } from './change-delivery';
import type { Placed } from './change-log';
import type { EventHub } from './event-hub';
import { END_OF_STREAM, EventStream, type NoticeMapper } from './event-stream';
import type { LiveScope, StreamOptions } from './live-scope';
import type { LiveAuthenticate, LiveSession } from './live-sessions';

export interface LiveOperationsOptions<N extends Placed> {
  schema: GraphQLSchema;
  /** A fresh context for an operation of `request`'s caller (read again from the token). */
  createContext: (request: RequestInfo, live: LiveScope<N>) => Promise<AuthContext>;
  /** The caller of a connection's `Authorization` value. */
  authenticate: LiveAuthenticate;
  hub: EventHub<N>;
  /** Where this instance stands in the change log (src/platform/live/change-delivery.ts). */
  changes: Pick<ChangeDelivery<N>, 'delivered' | 'startingPoint'>;
  limits: SubscriptionLimits;
  /** MAX_QUERY_COST: what a subscription's document may cost, as an operation over HTTP. */
  maxQueryCost: number;
  logger: Logger;
  metrics: LiveMetrics | null;
  /** The HTTP face's validation rules (graphql-armor's limits), applied here too. */
  validationRules: readonly ValidationRule[];
  /** The HTTP face's error shaping (coded errors as they are, anything else masked). */
  formatError: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;
  /** When on, the documents subscriptions may run, as on the HTTP face. */
  trusted: TrustedDocuments | null;
}

/** How often an event is read again while the database is unavailable (about a minute in all). */
const UNAVAILABLE_RETRIES = 64;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The document with `after: <cursor>` on its subscription field, when that field takes `after`
 * and the client did not give it: how an event stream's `Last-Event-ID` resumes a subscription.
 */
function resumedFrom(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  cursor: string,
): DocumentNode {
  const [field] = operation.selectionSet.selections;
  const definition =
    field?.kind === Kind.FIELD ? schema.getSubscriptionType()?.getFields()[field.name.value] : null;
  if (
    field?.kind !== Kind.FIELD ||
    !definition?.args.some((arg) => arg.name === 'after') ||
    field.arguments?.some((arg) => arg.name.value === 'after')
  ) {
    return document;
  }
  const after: ArgumentNode = {
    kind: Kind.ARGUMENT,
    name: { kind: Kind.NAME, value: 'after' },
    value: { kind: Kind.STRING, value: cursor },
  };
  const resumed: FieldNode = { ...field, arguments: [...(field.arguments ?? []), after] };
  const selections = [resumed, ...operation.selectionSet.selections.slice(1)];
  return {
    ...document,
    definitions: document.definitions.map((definition) =>
      definition === operation
        ? { ...operation, selectionSet: { ...operation.selectionSet, selections } }
        : definition,
    ),
  };
}

/** A subscribe request as either transport receives it. */
export interface SubscribePayload {
  query: string;
  operationName?: string | null;
  variables?: unknown;
  /** APQ's `persistedQuery.sha256Hash` names a trusted document (`query` may then be empty). */
  extensions?: unknown;
}

/** WebSocket's "try again later" (RFC 6455): a subscriber that did not keep up. */
const TRY_AGAIN_LATER = 1013;

/** A subscribe message's variables: an object, as the transport has already checked. */
const variablesOf = (variables: unknown): Record<string, unknown> =>
  variables !== null && typeof variables === 'object' ? (variables as Record<string, unknown>) : {};

/**
 * The text a subscribe request runs under trusted documents: the trusted document its id names
 * (the id decides), or its own text if that is trusted or may run anyway (logged); else null.
 */
function trustedSource(trusted: TrustedDocuments, payload: SubscribePayload): string | null {
  const id = apqHashOf(payload.extensions);
  const text = id === undefined ? undefined : trusted.textOf(id);
  if (text !== undefined) {
    return text;
  }
  if (id === undefined && trusted.trusts(payload.query)) {
    return payload.query;
  }
  const named = { id, text: payload.query, operationName: payload.operationName };
  return trusted.admitsUnknown(named, 'subscription') ? payload.query : null;
}

/**
 * What both transports (WebSocket, event stream) do with a subscription: check the document as
 * the HTTP face does (armor's rules, the node limit) and serve subscriptions only; then run it
 * with a context that is renewed before each event.
 */
export class LiveOperations<N extends Placed> {
  private readonly rules: readonly ValidationRule[];

  constructor(private readonly options: LiveOperationsOptions<N>) {
    this.rules = [...specifiedRules, ...options.validationRules];
  }

  /** Errors as the HTTP face shapes them. */
  format(errors: readonly GraphQLError[]): GraphQLFormattedError[] {
    return errors.map((error) => this.options.formatError(error.toJSON(), error));
  }

  /**
   * The execution of a subscribe request on `session` (which already runs `active`
   * subscriptions), or why it is refused.
   */
  async prepare(
    session: LiveSession,
    payload: SubscribePayload,
    active: number,
    resumeAfter: string | null = null,
  ): Promise<ExecutionArgs | readonly GraphQLError[]> {
    const { schema, limits, createContext, trusted } = this.options;
    const source = trusted ? trustedSource(trusted, payload) : payload.query;
    if (source === null) {
      return [new DocumentNotAllowedError()];
    }
    let document;
    try {
      document = parse(source, { maxTokens: GRAPHQL_LIMITS.maxTokens });
    } catch (error) {
      return [error instanceof GraphQLError ? error : new GraphQLError('Syntax error')];
    }
    const invalid = validate(schema, document, this.rules);
    if (invalid.length > 0) {
      return invalid;
    }
    let operation = getOperationAST(document, payload.operationName);
    if (operation?.operation !== OperationTypeNode.SUBSCRIPTION) {
      return [new WrongTransportError('OPERATION_NEEDS_HTTP')];
    }
    if (resumeAfter !== null) {
      document = resumedFrom(schema, document, operation, resumeAfter);
      operation = getOperationAST(document, payload.operationName) ?? operation;
    }
    const variableValues = variablesOf(payload.variables);
    try {
      assertWithinCost(
        assertWithinNodeLimit(schema, document, operation, variableValues),
        this.options.maxQueryCost,
      );
    } catch (error) {
      if (error instanceof QueryTooLargeError || error instanceof QueryTooCostlyError) {
        return [error];
      }
      throw error;
    }
    if (active >= limits.perSocket) {
      return [new LiveLimitError('TOO_MANY_SUBSCRIPTIONS', limits.perSocket)];
    }
    const live: LiveScope<N> = {
      stream: (topic, map, options) => this.stream(session, context, live, topic, map, options),
    };
    const context = await createContext(session.request, live);
    // The variables as the HTTP face judges them: a malformed id is a field error, not a crash.
    const refused = await variableFailure(schema, operation, variableValues, context);
    if (refused) {
      return [refused];
    }
    return {
      schema,
      document,
      operationName: payload.operationName,
      variableValues,
      contextValue: context,
    };
  }

  /** A subscription's stream: the context renewed before each notice, failures skipped. */
  private async stream<T>(
    session: LiveSession,
    context: AuthContext,
    live: LiveScope<N>,
    topic: string,
    map: NoticeMapper<T, N>,
    { resume, admits }: StreamOptions<N> = {},
  ): Promise<EventStream<T, N>> {
    const { createContext, hub, limits, logger, metrics } = this.options;
    let counted = false;
    const stream = new EventStream<T, N>({
      listen: (push) => hub.on(topic, push),
      // Read as the listener is registered (nothing is delivered in between): replay ends there.
      resume: resume && { ...resume, upTo: this.options.changes.delivered() },
      startAfter: resume ? undefined : this.options.changes.startingPoint(),
      capacity: limits.queueSize,
      onOverflow: () => {
        metrics?.eventsDropped.inc({ reason: 'slow_consumer' });
        logger.warn({ component: 'events', userId: session.user.id }, 'slow subscriber closed');
        session.close(TRY_AGAIN_LATER, 'Slow consumer');
      },
      onEnd: () => {
        if (counted) {
          metrics?.subscriptionsActive.dec();
        }
      },
      map: async (notice) => {
        // While the database is away an event cannot be read: it is read again (the stream
        // waits, in order) rather than lost; anything else skips it.
        for (let attempt = 0; ; attempt += 1) {
          try {
            if (admits && !(await admits(notice))) {
              return null;
            }
            const renewed = await createContext(session.request, live);
            if (renewed.auth.failure !== null) {
              // The user was deactivated (or their token expired) since the connection opened.
              session.close(CloseCode.Forbidden, 'Forbidden');
              return END_OF_STREAM;
            }
            Object.assign(context, renewed);
            const value = await map(notice);
            if (value !== null && value !== END_OF_STREAM) {
              metrics?.eventsDelivered.inc();
              session.delivered?.(notice.cursor);
            }
            return value;
          } catch (error) {
            if (error instanceof ServiceUnavailableError && attempt < UNAVAILABLE_RETRIES) {
              await sleep(Math.min(50 * 2 ** attempt, 1_000));
              continue;
            }
            metrics?.eventsDropped.inc({ reason: 'error' });
            logger.warn({ component: 'events', err: error }, 'an event could not be read');
            return null;
          }
        }
      },
    });
    // Running (and counted) once it knows where it starts: a change made after that is its own.
    await stream.started();
    if (!stream.isEnded) {
      counted = true;
      metrics?.subscriptionsActive.inc();
    }
    return stream;
  }
}
