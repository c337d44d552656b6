import { createGraphiQLFetcher, type Fetcher, type FetcherOpts } from '@graphiql/toolkit';
import { type Client, createClient } from 'graphql-ws';
import { readSession } from './session';

/** The graphql-ws client and GraphiQL fetcher of one Authorization value (null: none). */
interface Connection {
  authorization: string | null;
  /** Signed in by the bar (not a header of the user's own): signing out closes it. */
  fromSession: boolean;
  client: Client;
  fetcher: Fetcher;
}

const authorizationOf = (headers: FetcherOpts['headers']): string | null => {
  const name = Object.keys(headers ?? {}).find((key) => key.toLowerCase() === 'authorization');
  return name === undefined ? null : String(headers?.[name]);
};

/**
 * A socket that fails to open reports a bare Event, which the result pane would show as
 * {"isTrusted": true}: say what failed instead.
 */
const readableErrors = (client: Client, url: string): Client => ({
  ...client,
  subscribe: (payload, sink) =>
    client.subscribe(payload, {
      ...sink,
      error: (error: unknown) => {
        const failed = error instanceof Event && !(error instanceof CloseEvent);
        sink.error(failed ? new Error(`Could not open the WebSocket to ${url}`) : error);
      },
    }),
});

/** GraphiQL's fetcher, and what the sign-in bar calls when the session changes. */
export interface SessionFetcher {
  fetcher: Fetcher;
  /** Closes the socket the old session signed in, and the subscriptions on it. */
  sessionChanged(): void;
}

/**
 * Queries and mutations over HTTP, subscriptions over graphql-ws, both to `endpoint`. The
 * headers editor's own Authorization wins; otherwise the signed-in token goes along, over HTTP
 * and in the socket's connection_init. The token is sent once per socket, so one graphql-ws
 * client is kept per Authorization value: signing in or out opens a new connection.
 */
export function sessionFetcher(endpoint: string): SessionFetcher {
  const httpUrl = new URL(endpoint, window.location.href);
  const wsUrl = new URL(httpUrl.href);
  wsUrl.protocol = httpUrl.protocol === 'https:' ? 'wss:' : 'ws:';
  let current: Connection | null = null;

  const connectionFor = (authorization: string | null, fromSession: boolean): Connection => {
    if (current?.authorization === authorization) {
      return current;
    }
    current?.client.dispose();
    const client = createClient({
      url: wsUrl.href,
      lazy: true,
      connectionParams: authorization === null ? {} : { Authorization: authorization },
    });
    current = {
      authorization,
      fromSession,
      client,
      fetcher: createGraphiQLFetcher({
        url: httpUrl.href,
        wsClient: readableErrors(client, wsUrl.href),
      }),
    };
    return current;
  };

  const fetcher: Fetcher = (params, options) => {
    const headers: Record<string, unknown> = { ...options?.headers };
    const session = readSession();
    const fromSession = authorizationOf(headers) === null && session !== null;
    if (fromSession) {
      headers['Authorization'] = `Bearer ${session.accessToken}`;
    }
    return connectionFor(authorizationOf(headers), fromSession).fetcher(params, {
      ...options,
      headers,
    });
  };

  return {
    fetcher,
    sessionChanged() {
      // After signing out, nothing keeps arriving for the user who left.
      if (current?.fromSession) {
        current.client.dispose();
        current = null;
      }
    },
  };
}
