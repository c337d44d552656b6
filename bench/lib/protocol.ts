/** Messages between the harness and its load-generator child process (bench/loadgen.ts). */

export interface PlannedRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /**
   * What every answer must be, checked by the load generator on each response (cheaply: no
   * parsing), for a scenario whose answer was checked in full once: its status (else any 2xx is
   * right), its ETag header, its body's length.
   */
  expect?: AnswerCheck;
}

/** See {@link PlannedRequest.expect}. */
export interface AnswerCheck {
  status: number;
  etag?: string;
  /** The body's length in characters (UTF-16 code units, as it was read: ASCII data). */
  length?: number;
}

/** What one connection sends, over and over. */
export type LoadPlan =
  /** Each connection sends these in turn. */
  | { kind: 'cycle'; requests: PlannedRequest[] }
  /**
   * Writes: the meeting owner adds an invitee to a fresh meeting, then that invitee approves it.
   * Request i adds invitee ⌊i / meetings⌋ to meeting i mod meetings, so no pair repeats.
   */
  | {
      kind: 'add-approve';
      ownerToken: string;
      meetingIds: string[];
      invitees: { id: string; token: string }[];
    };

export interface LoadJob {
  url: string;
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
  plan: LoadPlan;
}

export interface LoadResult {
  /** Responses received in the measured phase. */
  responses: number;
  /** Of those, with the expected status (a 2xx, unless the request expects another). */
  ok: number;
  /** The status the requests expect, when not any 2xx (e.g. 304). */
  expectedStatus?: number;
  /** Answers with the expected status that failed the request's other checks (`expect`). */
  mismatches?: number;
  statusCounts: Record<string, number>;
  errors: number;
  timeouts: number;
  seconds: number;
  /** Latencies (ms) of the measured phase's responses. */
  latencies: Float64Array;
  /** Set by the harness for the measured phase: cores other processes on the machine kept busy, */
  contention?: number;
  /** CPU time (ms) of the target's processes, */
  targetCpuMs?: number;
  /** and of PostgreSQL. */
  databaseCpuMs?: number;
}

export type LoadMessage =
  | { type: 'phase'; phase: 'warmup' | 'measure' }
  | { type: 'tick'; phase: 'warmup' | 'measure'; second: number; responses: number }
  | { type: 'done'; result: LoadResult }
  | { type: 'failed'; message: string };
