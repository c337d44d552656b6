const snakeNames = new Map<string, string>();

/** `passwordConfirm` → `password_confirm` (memoised: the same few names recur in every answer). */
export function toSnake(name: string): string {
  let snake = snakeNames.get(name);
  if (snake === undefined) {
    snake = name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    if (snakeNames.size < 10_000) {
      snakeNames.set(name, snake);
    }
  }
  return snake;
}

/** `password_confirm` → `passwordConfirm`. */
export const toCamel = (name: string): string =>
  name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/**
 * The client's name for a GraphQL argument path: `participants.0.userId` → `participants.[0].user_id`;
 * the first segment may be renamed (`username` → `email` on the login route).
 */
export function clientFieldPath(
  path: ReadonlyArray<string | number>,
  renames: Readonly<Record<string, string>> = {},
): string {
  return path
    .map((segment, index) => {
      if (typeof segment === 'number' || /^\d+$/.test(segment)) {
        return `[${segment}]`;
      }
      return index === 0 && renames[segment] ? renames[segment] : toSnake(segment);
    })
    .join('.');
}
