/** Messages between the harness and its load-generator child process (bench/loadgen.ts). */

export interface PlannedRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
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
  /** Of those, with a 2xx status. */
  ok: number;
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
