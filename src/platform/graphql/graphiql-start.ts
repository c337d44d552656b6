/** What the browser script needs to know about this service. */
export interface GraphiqlStartConfig {
  /** The GraphQL endpoint: HTTP for queries and mutations, WebSocket for subscriptions. */
  endpoint: string;
  /** The document the editor starts with. */
  defaultQuery: string;
}

/**
 * The IDE's start-up script, served as a file (not inline, so the CSP allows it as 'self').
 *
 * Sign-in: the bar above GraphiQL runs the `login` mutation and keeps the access token in
 * sessionStorage (this tab only, gone when it closes). Every HTTP request then carries
 * `Authorization: Bearer …` unless the headers editor names its own Authorization, and the
 * WebSocket sends the same value in connection_init. The token is sent once per socket, so one
 * graphql-ws client is kept per Authorization value: signing in or out opens a new connection.
 */
export function graphiqlStartScript(config: GraphiqlStartConfig): string {
  return `(function () {
  'use strict';
  var config = ${JSON.stringify(config)};
  var SESSION_KEY = 'meeting-api.session';
  var httpUrl = new URL(config.endpoint, window.location.href);
  var wsUrl = new URL(httpUrl.href);
  wsUrl.protocol = httpUrl.protocol === 'https:' ? 'wss:' : 'ws:';
  var current = null;

  // ---- the session: { accessToken, expiresAt (ms), viewer: { name, account } } ----

  function readSession() {
    try {
      var session = JSON.parse(window.sessionStorage.getItem(SESSION_KEY) || 'null');
      if (session && typeof session.accessToken === 'string' && session.expiresAt > Date.now()) {
        return session;
      }
    } catch (ignored) {
      // Storage unavailable or not ours: signed out.
    }
    return null;
  }

  function writeSession(session) {
    if (session) {
      window.sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
    } else {
      window.sessionStorage.removeItem(SESSION_KEY);
    }
    // The socket signed in with the old session's token closes, its subscriptions with it: after
    // signing out, nothing keeps arriving for the user who left.
    if (current && current.fromSession) {
      current.client.dispose();
      current = null;
    }
    showSession();
  }

  async function post(query, variables, authorization) {
    var headers = { 'content-type': 'application/json', accept: 'application/json' };
    if (authorization) {
      headers.authorization = authorization;
    }
    var response = await fetch(httpUrl.href, {
      method: 'POST',
      headers: headers,
      credentials: 'same-origin',
      body: JSON.stringify({ query: query, variables: variables }),
    });
    var result = await response.json().catch(function () {
      return { errors: [{ message: 'HTTP ' + response.status }] };
    });
    if (result.errors && result.errors.length > 0) {
      throw new Error(result.errors[0].message || String(result.errors[0]));
    }
    return result.data;
  }

  var LOGIN = 'mutation SignIn($input: LoginInput!) { login(input: $input) { tokens { accessToken expiresIn } } }';
  var ME = 'query SignedInAs { me { name account } }';

  async function signIn(username, password) {
    var data = await post(LOGIN, { input: { username: username, password: password } });
    var tokens = data.login.tokens;
    var authorization = 'Bearer ' + tokens.accessToken;
    var me = (await post(ME, {}, authorization)).me;
    writeSession({
      accessToken: tokens.accessToken,
      expiresAt: Date.now() + tokens.expiresIn * 1000,
      viewer: { name: me.name, account: me.account },
    });
  }

  // ---- the bar ----

  var form = document.getElementById('sign-in');
  var signedIn = document.getElementById('signed-in');
  var viewer = document.getElementById('viewer');
  var message = document.getElementById('sign-in-message');
  var expiry = null;

  function showSession() {
    var session = readSession();
    form.hidden = session !== null;
    signedIn.hidden = session === null;
    viewer.textContent = session ? session.viewer.name + ' (' + session.viewer.account + ')' : '';
    clearTimeout(expiry);
    if (session) {
      expiry = setTimeout(function () {
        writeSession(null);
        message.textContent = 'Session expired: sign in again.';
      }, Math.min(session.expiresAt - Date.now(), 2147483647));
    }
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var fields = form.elements;
    message.textContent = 'Signing in…';
    signIn(fields.namedItem('username').value, fields.namedItem('password').value).then(
      function () {
        fields.namedItem('password').value = '';
        message.textContent = '';
      },
      function (error) {
        message.textContent = error.message;
      },
    );
  });

  document.getElementById('sign-out').addEventListener('click', function () {
    writeSession(null);
    message.textContent = 'Signed out.';
  });

  showSession();

  // ---- GraphiQL's fetcher ----

  function authorizationOf(headers) {
    var names = Object.keys(headers || {});
    for (var i = 0; i < names.length; i += 1) {
      if (names[i].toLowerCase() === 'authorization') {
        return String(headers[names[i]]);
      }
    }
    return null;
  }

  // A socket that fails to open reports a bare Event, which the result pane would show as
  // {"isTrusted": true}: say what failed instead.
  function readableErrors(client) {
    return {
      subscribe: function (payload, sink) {
        return client.subscribe(payload, {
          next: sink.next,
          complete: sink.complete,
          error: function (error) {
            var failed = error instanceof Event && !(error instanceof CloseEvent);
            sink.error(failed ? new Error('Could not open the WebSocket to ' + wsUrl.href) : error);
          },
        });
      },
    };
  }

  function fetcherFor(authorization, fromSession) {
    if (current && current.authorization === authorization) {
      return current.fetcher;
    }
    if (current) {
      current.client.dispose();
    }
    var client = graphqlWs.createClient({
      url: wsUrl.href,
      lazy: true,
      connectionParams: authorization === null ? {} : { Authorization: authorization },
    });
    current = {
      authorization: authorization,
      fromSession: fromSession,
      client: client,
      fetcher: GraphiQL.createFetcher({ url: httpUrl.href, wsClient: readableErrors(client) }),
    };
    return current.fetcher;
  }

  // The headers editor's own Authorization wins; otherwise the signed-in token goes along.
  function fetcher(params, options) {
    var headers = Object.assign({}, options && options.headers);
    var session = readSession();
    var fromSession = authorizationOf(headers) === null && session !== null;
    if (fromSession) {
      headers.Authorization = 'Bearer ' + session.accessToken;
    }
    var sent = Object.assign({}, options, { headers: headers });
    return fetcherFor(authorizationOf(headers), fromSession)(params, sent);
  }

  var plugins = [];
  if (window.GraphiQLPluginExplorer) {
    plugins.push(GraphiQLPluginExplorer.explorerPlugin());
  }

  ReactDOM.createRoot(document.getElementById('graphiql')).render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultQuery: config.defaultQuery,
      plugins: plugins,
    }),
  );
})();
`;
}
