/** A REST response as a test sees it: status, headers, and the parsed JSON body (or null). */
export interface RestResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  /** The body exactly as received. */
  text: string;
}

/** A request body: JSON (any plain value), a form (URLSearchParams), multipart (FormData), or raw. */
export type RestBody =
  | { json: unknown }
  | { form: URLSearchParams | Record<string, string> }
  | { multipart: FormData | Record<string, string> }
  | { raw: string | Uint8Array; contentType?: string };

export interface RestRequestOptions {
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** Extra or overriding headers (e.g. a raw `authorization`). */
  headers?: Record<string, string>;
  /** Query parameters; an array repeats the key. */
  query?: Record<string, string | number | ReadonlyArray<string | number>>;
}

function toFormData(fields: FormData | Record<string, string>): FormData {
  if (fields instanceof FormData) {
    return fields;
  }
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    form.append(name, value);
  }
  return form;
}

function encode(body: RestBody | undefined): {
  payload?: RequestInit['body'];
  contentType?: string;
} {
  if (!body) {
    return {};
  }
  if ('json' in body) {
    return { payload: JSON.stringify(body.json), contentType: 'application/json' };
  }
  if ('form' in body) {
    const params =
      body.form instanceof URLSearchParams ? body.form : new URLSearchParams(body.form);
    return { payload: params.toString(), contentType: 'application/x-www-form-urlencoded' };
  }
  if ('multipart' in body) {
    // fetch sets multipart/form-data with its boundary itself.
    return { payload: toFormData(body.multipart) };
  }
  return { payload: body.raw, contentType: body.contentType };
}

/** A small typed HTTP client for the REST facade under `${baseUrl}/api/v1`. */
export class RestClient {
  /** The service's URL, or how to read it when each request is made (useTestApp's client). */
  constructor(private readonly baseUrl: string | (() => string)) {}

  /** The URL of /api/v1. */
  get base(): string {
    const url = typeof this.baseUrl === 'string' ? this.baseUrl : this.baseUrl();
    return `${url.replace(/\/$/, '')}/api/v1`;
  }

  /** The absolute URL of a path under /api/v1, with its query string. */
  url(path: string, query: RestRequestOptions['query'] = {}): string {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) {
      for (const item of Array.isArray(value) ? value : [value]) {
        params.append(key, String(item));
      }
    }
    const search = params.toString();
    return `${this.base}${path}${search ? `?${search}` : ''}`;
  }

  async request<T = unknown>(
    method: string,
    path: string,
    body?: RestBody,
    options: RestRequestOptions = {},
  ): Promise<RestResponse<T>> {
    const { payload, contentType } = encode(body);
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...(contentType ? { 'content-type': contentType } : {}),
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...options.headers,
    };
    const response = await fetch(this.url(path, options.query), {
      method,
      headers,
      body: payload,
    });
    const text = await response.text();
    let parsed: unknown = null;
    if (text.length > 0 && /json/i.test(response.headers.get('content-type') ?? '')) {
      parsed = JSON.parse(text);
    }
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }

  get<T = unknown>(path: string, options: RestRequestOptions = {}): Promise<RestResponse<T>> {
    return this.request<T>('GET', path, undefined, options);
  }

  post<T = unknown>(
    path: string,
    body?: RestBody,
    options: RestRequestOptions = {},
  ): Promise<RestResponse<T>> {
    return this.request<T>('POST', path, body, options);
  }
}
