import { Field, ObjectType } from 'type-graphql';
import { Connection } from '../../platform/graphql/connection';
import { Resource } from './resource.entity';
import type { ResourceRecord } from './resource.store';

/** Slices of the list of resources. */
export const ResourceConnection = Connection(Resource, 'Resource');

@ObjectType({ simpleResolvers: true, description: 'The answer to createResource.' })
export class CreateResourcePayload {
  @Field(() => Resource, { description: 'The new resource.' })
  resource!: ResourceRecord;
}

@ObjectType({ simpleResolvers: true, description: 'The answer to updateResource.' })
export class UpdateResourcePayload {
  @Field(() => Resource, { description: 'The resource, as now stored.' })
  resource!: ResourceRecord;
}

@ObjectType({ simpleResolvers: true, description: 'The answer to deleteResource.' })
export class DeleteResourcePayload {
  @Field(() => Resource, { description: 'The resource, as it was.' })
  resource!: ResourceRecord;
}
