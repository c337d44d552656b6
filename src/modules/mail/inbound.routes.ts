import { timingSafeEqual } from 'node:crypto';
import express, { Router } from 'express';
import type { AddressObject } from 'mailparser';
import type { Logger } from 'pino';
import { bearerToken, type RequestInfo } from '../../platform/auth/tokens';
import { currentRequest } from '../../platform/observability/request-tracking';
import type { Context } from './mail.context';
import { readItipReply } from './mail.itip-reply';
import { MAIL_PATHS } from './mail.links';
import { parseMail } from './mail.parse';
import type { ReplyAddresses } from './mail.reply-address';

/** The largest message taken (a REPLY is a few KiB; clients may attach the invitation again). */
const MAX_BYTES = '2mb';

const same = (given: string, secret: string): boolean => {
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
};

/** Every address a message was sent to (To, Cc, and what the forwarder says it delivered to). */
function recipientsOf(parsed: {
  to?: AddressObject | AddressObject[];
  cc?: AddressObject | AddressObject[];
  headers: Map<string, unknown>;
}): string[] {
  const lists = [parsed.to, parsed.cc].flatMap((field) => (field ? [field].flat() : []));
  const delivered = parsed.headers.get('delivered-to');
  return [
    ...lists.flatMap((list) => list.value.map((address) => address.address ?? '')),
    ...(typeof delivered === 'string' ? [delivered] : []),
  ].filter(Boolean);
}

/**
 * `POST /mail/inbound`: a raw RFC 5322 message (`Content-Type: message/rfc822`) as inbound-mail
 * services forward it, with `Authorization: Bearer <MAIL_INBOUND_SECRET>`. A calendar app's iTIP
 * REPLY sent to a participant's reply address answers for that participant (200); anything else
 * is 202, ignored, and logged by its reason alone, never its content. Without
 * MAIL_INBOUND_SECRET and MAIL_REPLY_DOMAIN the route is not there (404).
 */
export function inboundRoutes(options: {
  secret: string | null;
  replies: ReplyAddresses | null;
  createContext: (request: RequestInfo) => Promise<Context>;
  logger: Logger;
}): Router {
  const router = Router();
  const { secret, replies, logger } = options;
  router.post('/', express.raw({ type: 'message/rfc822', limit: MAX_BYTES }), async (req, res) => {
    const scope = currentRequest();
    if (scope) {
      scope.route = MAIL_PATHS.inbound;
    }
    if (!secret || !replies) {
      res.status(404).json({ detail: 'Not Found' });
      return;
    }
    const given = bearerToken(req.headers.authorization);
    if (!given || !same(given, secret)) {
      res.status(401).set('WWW-Authenticate', 'Bearer').json({ detail: 'Not authenticated' });
      return;
    }
    const ignore = (reason: string) => {
      logger.info({ component: 'mail', reason }, 'inbound mail ignored');
      res.status(202).json({ status: 'ignored' });
    };
    if (!Buffer.isBuffer(req.body) || req.body.length === 0) {
      ignore('not a message/rfc822 body');
      return;
    }
    const parsed = await parseMail(req.body).catch(() => null);
    if (!parsed) {
      ignore('malformed message');
      return;
    }
    const participantId =
      recipientsOf(parsed)
        .map((address) => replies.participantOf(address))
        .find((id) => id !== null) ?? null;
    const calendar = parsed.attachments.find((part) =>
      part.contentType.startsWith('text/calendar'),
    );
    const reply = calendar ? readItipReply(calendar.content.toString('utf8')) : null;
    if (!participantId || !reply) {
      ignore(participantId ? 'no calendar reply' : 'no reply address of ours');
      return;
    }
    const context = await options.createContext({ authorization: undefined, ip: req.ip ?? '' });
    const outcome = await context.services.mail.applyReply(participantId, reply);
    if (!outcome.applied) {
      ignore(outcome.reason);
      return;
    }
    logger.info(
      { component: 'mail', participantId, answer: outcome.reason },
      'inbound reply applied',
    );
    res.status(200).json({ status: 'applied' });
  });
  return router;
}
