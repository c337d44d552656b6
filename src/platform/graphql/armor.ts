import { ApolloArmor } from '@escape.tech/graphql-armor';

/** Limits on what one GraphQL document may ask for; batching over HTTP stays off. */
export const GRAPHQL_LIMITS = {
  maxDepth: 10,
  maxAliases: 15,
  maxTokens: 2000,
  maxDirectives: 20,
} as const;

/** graphql-armor's validation rules and plugins with this service's limits. */
export function graphqlArmor() {
  return new ApolloArmor({
    maxDepth: { n: GRAPHQL_LIMITS.maxDepth, ignoreIntrospection: true, flattenFragments: true },
    maxAliases: { n: GRAPHQL_LIMITS.maxAliases },
    // graphql-js enforces the token limit while parsing (Apollo's parseOptions): a plugin
    // re-parsing the document would turn every syntax error into a 500.
    maxTokens: { enabled: false },
    // A static cost ignores page sizes: the node limit (node-limit.ts) counts what can come back.
    costLimit: { enabled: false },
    maxDirectives: { n: GRAPHQL_LIMITS.maxDirectives },
    blockFieldSuggestion: { enabled: true },
  }).protect();
}
