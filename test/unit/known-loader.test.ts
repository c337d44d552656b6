import { KnownLoader } from '../../src/platform/shared/known-loader';

/** A loader over a map, recording each batch it was asked for. */
function loaderOver(values: Record<string, string | null>) {
  const batches: string[][] = [];
  const loader = new KnownLoader<string, string | null>(async (keys) => {
    batches.push([...keys]);
    return keys.map((key) => values[key] ?? null);
  });
  return { loader, batches };
}

describe('KnownLoader', () => {
  it('answers a primed value at once, not as a promise, and never batches it', async () => {
    const { loader, batches } = loaderOver({ a: 'from the database' });
    loader.prime('a', 'primed');
    expect(loader.get('a')).toBe('primed');
    expect(await loader.load('a')).toBe('primed');
    expect(batches).toEqual([]);
  });

  it('answers an unknown key through one batch, then at once', async () => {
    const { loader, batches } = loaderOver({ a: 'A', b: 'B' });
    const first = loader.get('a');
    const second = loader.get('b');
    expect(first).toBeInstanceOf(Promise);
    expect(await Promise.all([first, second])).toEqual(['A', 'B']);
    expect(batches).toEqual([['a', 'b']]);
    expect(loader.get('a')).toBe('A');
  });

  it('knows a missing record as null once its batch has answered', async () => {
    const { loader, batches } = loaderOver({});
    expect(await loader.get('gone')).toBeNull();
    expect(loader.get('gone')).toBeNull();
    expect(batches).toEqual([['gone']]);
  });

  it('keeps the first value of a key, as DataLoader does on prime', () => {
    const { loader } = loaderOver({});
    loader.prime('a', 'first');
    loader.prime('a', 'second');
    expect(loader.get('a')).toBe('first');
  });

  it('forgets a cleared key and reads it again', async () => {
    const { loader, batches } = loaderOver({ a: 'fresh' });
    loader.prime('a', 'stale');
    loader.clear('a');
    expect(await loader.get('a')).toBe('fresh');
    loader.clearAll();
    expect(loader.get('a')).toBeInstanceOf(Promise);
    expect(await loader.get('a')).toBe('fresh');
    expect(batches).toEqual([['a'], ['a']]);
  });

  it('does not hold an error or a promise as known', async () => {
    const { loader } = loaderOver({ a: 'A' });
    loader.prime('a', new Error('no'));
    const answer = loader.get('a');
    expect(answer).toBeInstanceOf(Promise);
    await expect(answer).rejects.toThrow('no');
    const other = loaderOver({ b: 'B' }).loader;
    other.prime('b', Promise.resolve('later'));
    expect(other.get('b')).toBeInstanceOf(Promise);
  });
});
