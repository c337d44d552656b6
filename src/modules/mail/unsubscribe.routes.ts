import { type Request, type Response, Router } from 'express';
import type { Logger } from 'pino';
import type { RequestInfo } from '../../platform/auth/tokens';
import { escapeHtml } from '../../platform/http/html';
import { MAIL_TOPICS } from '../user';
import type { Context } from './mail.context';
import { MAIL_PATHS } from './mail.links';
import { labelRoute, sendPage } from './mail.pages';
import { UnsubscribeRefusedError, type UnsubscribeTarget } from './mail.service';

/** What a refused link's page says. */
const REFUSED: Record<UnsubscribeRefusedError['why'], string> = {
  forged: 'This link is not a valid unsubscribe link.',
  expired: 'This unsubscribe link has expired: sign in and change your mail preferences.',
  revoked: 'This unsubscribe link is for an account that no longer exists.',
};

const tokenOf = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The kind of mail a link turns off, as its pages name it. */
const kindOf = ({ topic }: UnsubscribeTarget): string =>
  `<strong>${escapeHtml(topic)}</strong> (${escapeHtml(MAIL_TOPICS[topic])})`;

/**
 * The page of a message's List-Unsubscribe link, at MAIL_PATHS.unsubscribe: `GET` names the kind
 * of mail and shows a button, changing nothing (mail scanners open links); `POST` to the same
 * address (the button, or a mail client's one-click POST of RFC 8058, whatever its body) turns
 * that kind off for the link's user. A refused link gets a page saying so, never a 500.
 */
export function unsubscribeRoutes(options: {
  createContext: (request: RequestInfo) => Promise<Context>;
  logger: Logger;
}): Router {
  const router = Router();
  const mail = async (req: Request) =>
    (await options.createContext({ authorization: undefined, ip: req.ip ?? '' })).services.mail;
  const failed = (res: Response, error: unknown): void => {
    if (error instanceof UnsubscribeRefusedError) {
      sendPage(res, 400, 'Link not valid', `    <p>${escapeHtml(REFUSED[error.why])}</p>`);
      return;
    }
    options.logger.error({ component: 'mail', err: error }, 'unsubscribe page failed');
    sendPage(res, 503, 'Please try again', '    <p>Your preferences could not be changed now.</p>');
  };
  router.get('/', async (req, res) => {
    labelRoute(MAIL_PATHS.unsubscribe);
    const token = tokenOf(req.query['token']);
    try {
      const target = await (await mail(req)).unsubscribeTarget(token);
      const action = `${MAIL_PATHS.unsubscribe}?token=${encodeURIComponent(token)}`;
      sendPage(
        res,
        200,
        'Unsubscribe',
        `    <p>Stop mail of the kind ${kindOf(target)} to ${escapeHtml(target.user.email)}?</p>
    <form method="post" action="${escapeHtml(action)}">
      <input type="hidden" name="List-Unsubscribe" value="One-Click" />
      <button type="submit">Unsubscribe</button>
    </form>`,
      );
    } catch (error) {
      failed(res, error);
    }
  });
  router.post('/', async (req, res) => {
    labelRoute(MAIL_PATHS.unsubscribe);
    try {
      const target = await (await mail(req)).unsubscribe(tokenOf(req.query['token']));
      sendPage(
        res,
        200,
        'Unsubscribed',
        `    <p>You will no longer get mail of the kind ${kindOf(target)}. Sign in to turn it ` +
          `on again (mail preferences).</p>`,
      );
    } catch (error) {
      failed(res, error);
    }
  });
  return router;
}
