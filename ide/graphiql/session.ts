/** Who is signed in on this tab: the access token and whom it belongs to. */
export interface Session {
  accessToken: string;
  /** When the token expires, in milliseconds since the epoch. */
  expiresAt: number;
  viewer: { name: string; account: string };
}

/** The sessionStorage key: this tab only, gone when it closes. */
export const SESSION_KEY = 'meeting-api.session';

const isSession = (value: unknown): value is Session => {
  const session = value as Partial<Session> | null;
  return (
    typeof session?.accessToken === 'string' &&
    typeof session.expiresAt === 'number' &&
    typeof session.viewer?.name === 'string' &&
    typeof session.viewer.account === 'string'
  );
};

/** The signed-in session, or null when signed out or its token has expired. */
export function readSession(): Session | null {
  try {
    const session: unknown = JSON.parse(window.sessionStorage.getItem(SESSION_KEY) ?? 'null');
    return isSession(session) && session.expiresAt > Date.now() ? session : null;
  } catch {
    // Storage unavailable or not ours: signed out.
    return null;
  }
}

/** Keeps `session` (null: forgets it). */
export function writeSession(session: Session | null): void {
  if (session) {
    window.sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
  } else {
    window.sessionStorage.removeItem(SESSION_KEY);
  }
}

interface GraphQLResponse<T> {
  data?: T;
  errors?: ReadonlyArray<{ message?: string }>;
}

/** Runs one operation over HTTP and answers its data, or throws the first error's message. */
async function post<T>(
  endpoint: string,
  query: string,
  variables: Record<string, unknown>,
  authorization?: string,
): Promise<T> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
  };
  if (authorization) {
    headers['authorization'] = authorization;
  }
  const response = await fetch(endpoint, {
    method: 'POST',
    headers,
    credentials: 'same-origin',
    body: JSON.stringify({ query, variables }),
  });
  const result = (await response.json().catch(() => ({
    errors: [{ message: `HTTP ${response.status}` }],
  }))) as GraphQLResponse<T>;
  const [error] = result.errors ?? [];
  if (error || result.data === undefined) {
    throw new Error(error?.message ?? `HTTP ${response.status}`);
  }
  return result.data;
}

const LOGIN =
  'mutation SignIn($input: LoginInput!) { login(input: $input) { tokens { accessToken expiresIn } } }';
const ME = 'query SignedInAs { me { name account } }';

/** Signs in with the `login` mutation and answers the session (not yet kept). */
export async function signIn(
  endpoint: string,
  username: string,
  password: string,
): Promise<Session> {
  const { login } = await post<{ login: { tokens: { accessToken: string; expiresIn: number } } }>(
    endpoint,
    LOGIN,
    { input: { username, password } },
  );
  const { accessToken, expiresIn } = login.tokens;
  const { me } = await post<{ me: Session['viewer'] }>(endpoint, ME, {}, `Bearer ${accessToken}`);
  return {
    accessToken,
    expiresAt: Date.now() + expiresIn * 1000,
    viewer: { name: me.name, account: me.account },
  };
}
