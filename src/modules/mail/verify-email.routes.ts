import express, { type Request, type Response, Router } from 'express';
import type { Logger } from 'pino';
import type { RequestInfo } from '../../platform/auth/tokens';
import { escapeHtml } from '../../platform/http/html';
import type { Context } from './mail.context';
import { MAIL_PATHS } from './mail.links';
import { labelRoute, sendPage } from './mail.pages';
import { VerificationRefusedError } from './mail.service';

/** The page's answer to a refused link: what happened, and what to do. */
const REFUSED: Record<VerificationRefusedError['why'], string> = {
  forged: 'This link is not a valid verification link.',
  expired: 'This verification link has expired.',
  revoked: 'This link is for an address that has changed since it was sent.',
};
const ASK_AGAIN = 'Sign in and ask for a new verification message (resendVerificationEmail).';

const tokenOf = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * The page of the verification link: `GET` shows a button and changes nothing (mail scanners
 * open links), its form's `POST` verifies. A refused link gets a page saying why, never a 500.
 */
export function verifyEmailRoutes(options: {
  createContext: (request: RequestInfo) => Promise<Context>;
  logger: Logger;
}): Router {
  const router = Router();
  router.get('/', (req: Request, res: Response) => {
    labelRoute(MAIL_PATHS.verifyEmail);
    const token = tokenOf(req.query['token']);
    sendPage(
      res,
      200,
      'Confirm your e-mail address',
      `    <form method="post" action="${MAIL_PATHS.verifyEmail}">
      <input type="hidden" name="token" value="${escapeHtml(token)}" />
      <button type="submit">Confirm my address</button>
    </form>`,
    );
  });
  router.post('/', express.urlencoded({ extended: false, limit: '4kb' }), async (req, res) => {
    labelRoute(MAIL_PATHS.verifyEmail);
    const token = tokenOf((req.body as Record<string, unknown> | undefined)?.['token']);
    try {
      const context = await options.createContext({ authorization: undefined, ip: req.ip ?? '' });
      const user = await context.services.mail.verifyEmail(token);
      sendPage(
        res,
        200,
        'Address confirmed',
        `    <p>Thank you: ${escapeHtml(user.email)} is confirmed.</p>`,
      );
    } catch (error) {
      if (!(error instanceof VerificationRefusedError)) {
        options.logger.error({ component: 'mail', err: error }, 'verification page failed');
        sendPage(
          res,
          503,
          'Please try again',
          '    <p>The address could not be confirmed now.</p>',
        );
        return;
      }
      sendPage(
        res,
        400,
        'Link not valid',
        `    <p>${escapeHtml(REFUSED[error.why])}</p>\n    <p>${escapeHtml(ASK_AGAIN)}</p>`,
      );
    }
  });
  return router;
}
