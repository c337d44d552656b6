import { type GraphQLResolveInfo, Kind, type SelectionSetNode } from 'graphql';

/**
 * Whether the field being resolved selects `name` among its own subfields, directly or through
 * fragments: a resolver reads related records in the same statement only when they are asked for.
 * `@skip`/`@include` are not evaluated (a skipped field is read for nothing, never missed).
 */
export function selectsField(info: GraphQLResolveInfo, name: string): boolean {
  const visited = new Set<string>();
  const within = (selectionSet: SelectionSetNode | undefined): boolean =>
    selectionSet?.selections.some((selection) => {
      if (selection.kind === Kind.FIELD) {
        return selection.name.value === name;
      }
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        return within(selection.selectionSet);
      }
      const fragment = info.fragments[selection.name.value];
      if (!fragment || visited.has(fragment.name.value)) {
        return false;
      }
      visited.add(fragment.name.value);
      return within(fragment.selectionSet);
    }) ?? false;
  return info.fieldNodes.some((node) => within(node.selectionSet));
}
