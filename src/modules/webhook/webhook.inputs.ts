import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  MaxLength,
} from 'class-validator';
import { ArgsType, Field, InputType } from 'type-graphql';
import { PartialInput, PickInput } from '../../platform/shared/derived-inputs';
import { GraphQLUUID } from '../../platform/shared/scalars';
import { EVENT_TYPES_TEXT, WEBHOOK_EVENT_TYPES } from './webhook.events';
import { WEBHOOK_LIMITS } from './webhook.limits';

const ENDPOINT_ID = 'Id of one of the caller’s webhook endpoints (UUID).';

@InputType({ description: 'A new webhook endpoint of the caller.' })
export class CreateWebhookEndpointInput {
  @Field({
    description:
      `Where events are POSTed: an http or https URL (https in production) of a public ` +
      `address, at most ${WEBHOOK_LIMITS.url.max} characters.`,
  })
  @IsString()
  @MaxLength(WEBHOOK_LIMITS.url.max)
  url!: string;

  @Field(() => [String], {
    description: `The event types to receive, at least one of: ${EVENT_TYPES_TEXT}.`,
  })
  @ArrayMinSize(1)
  @ArrayMaxSize(WEBHOOK_EVENT_TYPES.length)
  @ArrayUnique()
  @IsIn(WEBHOOK_EVENT_TYPES, { each: true })
  eventTypes!: string[];
}

@ArgsType()
export class WebhookEndpointIdArgs {
  @Field(() => GraphQLUUID, { description: ENDPOINT_ID })
  endpointId!: string;
}

/** Names the endpoint a mutation acts on. */
const EndpointRef = PickInput(WebhookEndpointIdArgs, ['endpointId']);

@InputType({
  description:
    'Changes to one of the caller’s endpoints: only the fields given change, with the limits ' +
    'of createWebhookEndpoint.',
})
export class UpdateWebhookEndpointInput extends PartialInput(
  CreateWebhookEndpointInput,
  ['url', 'eventTypes'],
  { base: EndpointRef },
) {
  @Field(() => Boolean, {
    nullable: true,
    description:
      'true sends events to it again (its count of failed events starts from 0) and resumes the ' +
      'deliveries it kept while disabled; false stops them.',
  })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean | null;
}

@InputType({ description: 'The endpoint to delete, with its deliveries.' })
export class DeleteWebhookEndpointInput extends EndpointRef {}

@InputType({
  description:
    'The endpoint whose signing secret to replace (the old one signs for 24 more hours).',
})
export class RotateWebhookSecretInput extends EndpointRef {}

@InputType({ description: 'The delivery to attempt again now.' })
export class RedeliverWebhookInput {
  @Field(() => GraphQLUUID, {
    description: 'Id of a delivery to one of the caller’s endpoints (its webhook-id).',
  })
  deliveryId!: string;
}
