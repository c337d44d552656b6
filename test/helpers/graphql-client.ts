/** One GraphQL error as the service sends it. */
export interface GraphQLErrorBody {
  message: string;
  path?: ReadonlyArray<string | number>;
  extensions?: { code?: string; reason?: string; fields?: Record<string, string> };
}

/** The body of a GraphQL response. */
export interface GraphQLResult<T = Record<string, unknown>> {
  data?: T | null;
  errors?: GraphQLErrorBody[];
  extensions?: Record<string, unknown>;
}

/** Sends GraphQL over real HTTP, as a client would. */
export class GraphQLClient {
  constructor(readonly endpoint: string) {}

  async request<T = Record<string, unknown>>(
    query: string,
    variables: Record<string, unknown> = {},
    token?: string,
  ): Promise<GraphQLResult<T> & { status: number }> {
    const response = await fetch(this.endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await response.json()) as GraphQLResult<T>;
    return { ...body, status: response.status };
  }

  /** Runs an operation that must succeed and returns its data. */
  async data<T = Record<string, unknown>>(
    query: string,
    variables: Record<string, unknown> = {},
    token?: string,
  ): Promise<T> {
    const result = await this.request<T>(query, variables, token);
    if (result.errors?.length || !result.data) {
      throw new Error(`GraphQL operation failed: ${JSON.stringify(result.errors)}`);
    }
    return result.data;
  }

  /** Runs an operation that must fail and returns its first error. */
  async error(
    query: string,
    variables: Record<string, unknown> = {},
    token?: string,
  ): Promise<GraphQLErrorBody> {
    const result = await this.request(query, variables, token);
    const first = result.errors?.[0];
    if (!first) {
      throw new Error(`expected an error, got ${JSON.stringify(result.data)}`);
    }
    return first;
  }
}
