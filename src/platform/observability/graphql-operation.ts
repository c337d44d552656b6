import type { ApolloServerPlugin } from '@apollo/server';
import { currentRequest } from './request-tracking';

/** Operation names are the client's choice: past this many, new ones share one label. */
const MAX_OPERATION_LABELS = 200;

/**
 * Names the request after its GraphQL operation (`/graphql MyMeetings`), for its log line and
 * its duration metric. Labels are bounded, so a client inventing names cannot grow the metrics.
 */
export function operationLabelPlugin(path: string): ApolloServerPlugin {
  const known = new Set<string>();
  const labelOf = (name: string | null | undefined): string => {
    if (!name) {
      return `${path} (anonymous)`;
    }
    if (!known.has(name)) {
      if (known.size >= MAX_OPERATION_LABELS) {
        return `${path} (other)`;
      }
      known.add(name);
    }
    return `${path} ${name}`;
  };
  return {
    async requestDidStart() {
      const scope = currentRequest();
      if (scope) {
        scope.route = path;
      }
      return {
        async didResolveOperation({ operationName }) {
          if (scope) {
            scope.route = labelOf(operationName);
          }
        },
      };
    },
  };
}
