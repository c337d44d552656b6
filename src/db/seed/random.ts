/** A tiny, fast, deterministic PRNG (mulberry32): returns floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** FNV-1a over a label, mixed into a seed: independent streams per phase from one seed. */
function mixSeed(seed: number, label: string): number {
  let hash = 0x811c9dc5 ^ (seed >>> 0);
  for (let i = 0; i < label.length; i += 1) {
    hash ^= label.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Deterministic random choices on top of mulberry32. */
export class Random {
  private readonly next: () => number;

  constructor(private readonly seed: number) {
    this.next = mulberry32(seed);
  }

  /** An independent stream for one phase, so changing one phase's size leaves the others alone. */
  fork(label: string): Random {
    return new Random(mixSeed(this.seed, label));
  }

  /** A float in [0, 1). */
  float(): number {
    return this.next();
  }

  /** A float in [min, max). */
  between(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** An integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor((max - min + 1) * this.next());
  }

  /** An index in [0, size), skewed towards 0 when skew > 1 (a few popular items, a long tail). */
  index(size: number, skew = 1): number {
    const r = skew === 1 ? this.next() : this.next() ** skew;
    return Math.min(size - 1, Math.floor(size * r));
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) {
      throw new RangeError('cannot pick from an empty list');
    }
    return items[this.index(items.length)] as T;
  }

  /** One of the keys, with probability proportional to its weight. */
  weighted<T>(entries: readonly (readonly [T, number])[]): T {
    const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
    let r = this.next() * total;
    for (const [value, weight] of entries) {
      r -= weight;
      if (r < 0) {
        return value;
      }
    }
    const last = entries[entries.length - 1];
    if (!last) {
      throw new RangeError('cannot pick from an empty list');
    }
    return last[0];
  }

  /**
   * `count` distinct indexes in [0, size), none in `exclude`. Uses rejection sampling (with the
   * given skew) while the sample is small against the population, a partial shuffle otherwise.
   */
  distinctIndexes(
    size: number,
    count: number,
    exclude: ReadonlySet<number> = new Set(),
    skew = 1,
  ): number[] {
    const available = size - [...exclude].filter((i) => i >= 0 && i < size).length;
    const wanted = Math.max(0, Math.min(count, available));
    if (wanted * 3 <= available) {
      const chosen = new Set<number>();
      while (chosen.size < wanted) {
        // Mix uniform and skewed picks: popular users show up often, everybody now and then.
        const i = this.chance(0.5) ? this.index(size) : this.index(size, skew);
        if (!exclude.has(i)) {
          chosen.add(i);
        }
      }
      return [...chosen];
    }
    const pool: number[] = [];
    for (let i = 0; i < size; i += 1) {
      if (!exclude.has(i)) {
        pool.push(i);
      }
    }
    for (let i = 0; i < wanted; i += 1) {
      const j = this.int(i, pool.length - 1);
      const a = pool[i] as number;
      pool[i] = pool[j] as number;
      pool[j] = a;
    }
    return pool.slice(0, wanted);
  }
}
