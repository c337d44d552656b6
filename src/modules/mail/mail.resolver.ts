import { Arg, Authorized, Ctx, Mutation, Resolver } from 'type-graphql';
import { Viewer } from '../../platform/auth/tokens';
import type { UserRecord } from '../user';
import type { Context } from './mail.context';
import { VerifyEmailInput } from './mail.inputs';
import { ResendVerificationEmailPayload, VerifyEmailPayload } from './mail.types';

/** Verifying addresses (the messages themselves are made from the change log). */
@Resolver()
export class MailResolver {
  @Mutation(() => VerifyEmailPayload, {
    description:
      "Verifies the address a verification link names (no sign-in: the link's token is the " +
      'proof); refused when the link is forged, expired, or its address has changed since.',
  })
  async verifyEmail(
    @Arg('input', () => VerifyEmailInput, { description: "The link's token." })
    input: VerifyEmailInput,
    @Ctx() ctx: Context,
  ): Promise<VerifyEmailPayload> {
    return { verified: (await ctx.services.mail.verifyEmail(input.token)).emailVerified };
  }

  @Authorized()
  @Mutation(() => ResendVerificationEmailPayload, {
    description: "Sends the caller's address a new verification message, unless it is verified.",
  })
  async resendVerificationEmail(
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<ResendVerificationEmailPayload> {
    return { sent: await ctx.services.mail.resendVerification(viewer) };
  }
}
