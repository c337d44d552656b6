import { call } from '../../test/faults/support/load';

// The fleet run's requests through the balancer (the fault tests' `call`: fetch, 15 s at most,
// never throws), and the tally of every answer by the phase of the run it came in (which fault
// was under way).

export { call };

/** An answer, or none (status null: the connection failed or timed out). */
export type Reply = Awaited<ReturnType<typeof call>>;

/**
 * The error codes of an answer: GraphQL's (extensions.code and reason of each error) or REST's
 * (`{"errors": "<CODE>"}`; a validation failure's object of fields counts as VALIDATION).
 */
export function errorCodes(body: unknown): string[] {
  const errors = (body as { errors?: unknown } | null)?.errors;
  if (typeof errors === 'string') {
    return [errors];
  }
  if (Array.isArray(errors)) {
    // GraphQL gives some codes a family (CONFLICT) and the code itself as `reason`.
    return errors.flatMap((error: { extensions?: { code?: unknown; reason?: unknown } }) => [
      String(error.extensions?.code ?? 'UNKNOWN'),
      ...(typeof error.extensions?.reason === 'string' ? [error.extensions.reason] : []),
    ]);
  }
  return errors ? ['VALIDATION'] : [];
}

/** Every answer by the phase it came in and its class: 2xx, 4xx, 5xx or no answer. */
export class Tally {
  private readonly byPhase = new Map<string, Map<string, number>>();
  /** The 4xx and 5xx answers by status and error code. */
  readonly failures = new Map<string, number>();

  constructor(private readonly phase: () => string) {}

  count(reply: Reply): void {
    const kind =
      reply.status === null
        ? 'no answer'
        : reply.status >= 500
          ? '5xx'
          : reply.status >= 400
            ? '4xx'
            : '2xx';
    if (reply.status !== null && reply.status >= 400) {
      const what = `${reply.status} ${errorCodes(reply.body).join(' ')}`.trim();
      this.failures.set(what, (this.failures.get(what) ?? 0) + 1);
    }
    const phase = this.phase();
    const counts = this.byPhase.get(phase) ?? new Map<string, number>();
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
    this.byPhase.set(phase, counts);
  }

  /** Phase → class → count, phases in the order first seen. */
  table(): [string, Record<string, number>][] {
    return [...this.byPhase].map(([phase, counts]) => [phase, Object.fromEntries(counts)]);
  }
}
