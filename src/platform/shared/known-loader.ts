import DataLoader from 'dataloader';

/** A value a loader knows already, or the promise of it. */
export type Known<V> = V | Promise<V>;

/**
 * A DataLoader that also answers, synchronously, the values it already holds: primed ones and
 * those of finished batches. A field resolver that returns a value instead of a promise lets the
 * compiled executor (graphql-jit) complete the field inline; a promise per field costs it a
 * closure chain and a microtask per item (measured: the 50 participants' users of a meeting were
 * 12% of all bytes a REST meeting request allocated).
 */
export class KnownLoader<K, V> extends DataLoader<K, V> {
  private readonly known: Map<K, V>;

  constructor(batch: DataLoader.BatchLoadFn<K, V>) {
    const known = new Map<K, V>();
    super(async (keys) => {
      const values = await batch(keys);
      keys.forEach((key, index) => {
        const value = values[index];
        if (!(value instanceof Error) && value !== undefined) {
          known.set(key, value);
        }
      });
      return values;
    });
    this.known = known;
  }

  /** The value for `key`: at once when it is known, else through a batch. */
  get(key: K): Known<V> {
    return this.known.has(key) ? (this.known.get(key) as V) : this.load(key);
  }

  /** As DataLoader's `prime`: a key already held keeps its value. */
  override prime(key: K, value: V | PromiseLike<V> | Error): this {
    if (!(value instanceof Error) && !isPromiseLike(value) && !this.known.has(key)) {
      this.known.set(key, value);
    }
    return super.prime(key, value);
  }

  override clear(key: K): this {
    this.known.delete(key);
    return super.clear(key);
  }

  override clearAll(): this {
    this.known.clear();
    return super.clearAll();
  }
}

function isPromiseLike<V>(value: V | PromiseLike<V>): value is PromiseLike<V> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** Answers a batch's records in the order of its keys (null where none was found). */
export function inKeyOrder<R extends { id: string }>(
  keys: readonly string[],
  records: readonly R[],
): (R | null)[] {
  const byId = new Map(records.map((record) => [record.id, record]));
  return keys.map((key) => byId.get(key) ?? null);
}
