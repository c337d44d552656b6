import type { Server } from 'node:http';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import type { AuthContext } from '../auth/tokens';
import { operationLabelPlugin } from '../observability/graphql-operation';
import { GRAPHQL_LIMITS, graphqlArmor } from './armor';
import { compiledExecution } from './execution';
import { formatError } from './format-error';
import { graphiqlLandingPage } from './graphiql';
import { jsonClientStatusPlugin } from './http-status';
import type { CostBudget } from './cost-budget';
import { operationCostPlugin } from './operation-cost';
import type { CostMetrics } from '../observability/metrics';
import { readAfterPlugin } from './read-after';
import { answerCachePlugin } from '../answer-cache/answer-cache-plugin';
import type { AnswerCache } from '../answer-cache/answer-cache';
import { subscriptionsOverWebSocketPlugin } from './subscriptions-over-websocket';
import type { TrustedDocuments } from './trusted-documents';

export const GRAPHQL_PATH = '/graphql';

/** Apollo Server over the shared schema, with the offline GraphiQL IDE as its landing page. */
export function createApolloServer(options: {
  schema: GraphQLSchema;
  httpServer: Server;
  logger: Logger;
  introspection: boolean;
  /** The IDE page (see graphiqlIde), rendered once by the caller. */
  ideHtml: string;
  /** When on, automatic persisted queries find the trusted documents by id. */
  trusted: TrustedDocuments | null;
  /** What operations may cost: MAX_QUERY_COST, and each caller's budget (null: none). */
  cost: { maxCost: number; budget: CostBudget | null; metrics: CostMetrics | null };
  /** With read replicas: the write position a mutation answers with (see readAfterPlugin). */
  positionAfterWrite?: (() => Promise<string | null>) | undefined;
  /** The answer cache, in the pipeline (see answerCachePlugin). */
  answers?: AnswerCache | null;
}): ApolloServer<AuthContext> {
  const armor = graphqlArmor();
  return new ApolloServer<AuthContext>({
    gateway: compiledExecution(options.schema),
    introspection: options.introspection,
    includeStacktraceInErrorResponses: false,
    allowBatchedHttpRequests: false,
    // Otherwise Apollo's default: an in-memory store of up to ~30 MiB of document text.
    ...(options.trusted && {
      persistedQueries: { cache: options.trusted.persistedQueryStore() },
    }),
    parseOptions: { maxTokens: GRAPHQL_LIMITS.maxTokens },
    // main.ts owns SIGTERM/SIGINT and stops Apollo as part of its own graceful shutdown.
    stopOnTerminationSignals: false,
    formatError: formatError(options.logger),
    logger: options.logger,
    validationRules: armor.validationRules,
    plugins: [
      ...armor.plugins,
      operationCostPlugin({ schema: options.schema, ...options.cost }),
      jsonClientStatusPlugin(),
      subscriptionsOverWebSocketPlugin(),
      // No HTTP caching of GraphQL answers here; the plugin would cost a hook per field.
      ApolloServerPluginCacheControlDisabled(),
      ApolloServerPluginDrainHttpServer({ httpServer: options.httpServer }),
      graphiqlLandingPage(options.ideHtml),
      operationLabelPlugin(GRAPHQL_PATH),
      ...(options.positionAfterWrite ? [readAfterPlugin(options.positionAfterWrite)] : []),
      ...(options.answers ? [answerCachePlugin(options.answers)] : []),
    ],
  });
}
