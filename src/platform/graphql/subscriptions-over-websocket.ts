import type { ApolloServerPlugin } from '@apollo/server';
import type { AuthContext } from '../auth/tokens';
import { WrongTransportError } from '../shared/errors';

/**
 * A subscription sent over HTTP is refused before it runs (400, a coded error): its events are
 * served over WebSocket on the same path (src/platform/live/live-server.ts).
 */
export function subscriptionsOverWebSocketPlugin(): ApolloServerPlugin<AuthContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation }) {
          if (operation?.operation === 'subscription') {
            throw new WrongTransportError('SUBSCRIPTION_NEEDS_WEBSOCKET');
          }
        },
      };
    },
  };
}
