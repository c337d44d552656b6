import { Arg, Args, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { Viewer } from '../../platform/auth/tokens';
import type { ConnectionResult } from '../../platform/graphql/connection';
import type { UserRecord } from '../user';
import type { Context } from './resource.context';
import {
  CreateResourceInput,
  DeleteResourceInput,
  ResourcesArgs,
  UpdateResourceInput,
} from './resource.inputs';
import type { ResourceRecord } from './resource.store';
import {
  CreateResourcePayload,
  DeleteResourcePayload,
  ResourceConnection,
  UpdateResourcePayload,
} from './resource.types';

const ADMINS = 'Admins only (anyone else: FORBIDDEN, ONLY_ADMINS_MANAGE_RESOURCES).';

@Resolver()
export class ResourceResolver {
  @Authorized()
  @Query(() => ResourceConnection.type, {
    description: 'Rooms and other resources the filter takes, by name, in slices.',
  })
  resources(
    @Args() { filter, ...request }: ResourcesArgs,
    @Ctx() ctx: Context,
  ): Promise<ConnectionResult<ResourceRecord>> {
    return ctx.services.resources.list(filter, request);
  }

  @Authorized()
  @Mutation(() => CreateResourcePayload, { description: `Makes a resource. ${ADMINS}` })
  async createResource(
    @Arg('input', { description: 'The resource.' }) input: CreateResourceInput,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<CreateResourcePayload> {
    return { resource: await ctx.services.resources.create(viewer, input) };
  }

  @Authorized()
  @Mutation(() => UpdateResourcePayload, {
    description: `Changes a resource (else RESOURCE_NOT_FOUND). ${ADMINS}`,
  })
  async updateResource(
    @Arg('input', { description: 'The resource and its changes.' }) input: UpdateResourceInput,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<UpdateResourcePayload> {
    return { resource: await ctx.services.resources.update(viewer, input) };
  }

  @Authorized()
  @Mutation(() => DeleteResourcePayload, {
    description:
      'Deletes a resource (else RESOURCE_NOT_FOUND); the meetings that booked it no longer ' +
      `do. ${ADMINS}`,
  })
  async deleteResource(
    @Arg('input', { description: 'The resource.' }) input: DeleteResourceInput,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<DeleteResourcePayload> {
    return { resource: await ctx.services.resources.remove(viewer, input.resourceId) };
  }
}
