/**
 * `Promise.withResolvers` (ES2024, Node 22) for Node 20: PostGraphile 5 declares Node >= 22 and
 * every query fails inside @dataplan/pg without it. Imported before anything of PostGraphile.
 */

interface Resolvers<T> {
  promise: Promise<T>;
  resolve: (value: T | PromiseLike<T>) => void;
  reject: (reason?: unknown) => void;
}

const promises = Promise as PromiseConstructor & {
  withResolvers?: <T>() => Resolvers<T>;
};

if (typeof promises.withResolvers !== 'function') {
  promises.withResolvers = <T>(): Resolvers<T> => {
    let resolve!: Resolvers<T>['resolve'];
    let reject!: Resolvers<T>['reject'];
    const promise = new Promise<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}
