/**
 * Gives an entity class read-only id properties derived from its relations (`userId` from
 * `user`), defined on the prototype. The GraphQL types declare those ids as plain fields, which
 * the executor reads directly: plain records carry them as their own properties, and entities
 * answer them through these getters.
 */
export function deriveRelationIds<T extends object>(
  entity: abstract new (...args: never[]) => T,
  ids: Readonly<Record<string, keyof T>>,
): void {
  for (const [id, relation] of Object.entries(ids)) {
    Object.defineProperty(entity.prototype, id, {
      configurable: true,
      get(this: T) {
        const target = this[relation] as { id: string } | null | undefined;
        return target ? target.id : null;
      },
    });
  }
}
