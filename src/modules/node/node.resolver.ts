import { ArrayMaxSize } from 'class-validator';
import { Arg, Args, ArgsType, Authorized, Ctx, Field, ID, Query, Resolver } from 'type-graphql';
import type { Context } from './node.context';
import { MAX_PAGE_SIZE } from '../../platform/shared/pagination';
import { Viewer } from '../../platform/auth/tokens';
import type { UserRecord } from '../user';
import type { NodeRecord } from './node.service';
import { Node } from '../../platform/graphql/node-interface';

@ArgsType()
export class NodesArgs {
  @Field(() => [ID], { description: 'Ids (UUIDs), at most 100.' })
  @ArrayMaxSize(MAX_PAGE_SIZE)
  ids!: string[];
}

/** Refetching any object by its id (Relay's Node interface). */
@Resolver()
export class NodeResolver {
  @Authorized()
  @Query(() => Node, {
    nullable: true,
    description:
      'The object with this id, if the caller may see it (as through the other queries); null ' +
      'for an unknown id and for one the caller may not see alike.',
  })
  async node(
    @Arg('id', () => ID, { description: 'The id (a UUID), as any object shows it.' }) id: string,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<NodeRecord | null> {
    const [record] = await ctx.services.nodes.byIds(viewer, [id]);
    return record ?? null;
  }

  @Authorized()
  @Query(() => [Node], {
    nullable: 'items',
    description:
      'The objects with these ids, in their order: each null where node(id) would be null.',
  })
  nodes(
    @Args() { ids }: NodesArgs,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<(NodeRecord | null)[]> {
    return ctx.services.nodes.byIds(viewer, ids);
  }
}
