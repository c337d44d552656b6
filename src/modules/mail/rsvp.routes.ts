import express, { type Request, type Response, Router } from 'express';
import type { Logger } from 'pino';
import type { RequestInfo } from '../../platform/auth/tokens';
import { escapeHtml } from '../../platform/http/html';
import { AppError } from '../../platform/shared/errors';
import type { Context } from './mail.context';
import { MAIL_PATHS } from './mail.links';
import { labelRoute, sendPage } from './mail.pages';
import { RSVP_ANSWERS, type RsvpAnswer } from './mail.rsvp';
import { RsvpRefusedError, type RsvpTarget } from './mail.service';
import { formatWhen, readerZone } from './mail.time';

const ROUTE = '/:token';

/** What a refused link's page says, and its status. */
const REFUSED: Record<RsvpRefusedError['why'], { status: number; text: string }> = {
  forged: { status: 400, text: 'This link is not a valid invitation link.' },
  expired: { status: 410, text: 'This invitation link has expired: the meeting is over.' },
  revoked: {
    status: 410,
    text: 'This invitation link no longer answers: you are not a participant of the meeting.',
  },
};

const LABEL: Record<RsvpAnswer, string> = { accept: 'Accept', decline: 'Decline' };
const DONE: Record<RsvpAnswer, string> = { accept: 'accepted', decline: 'declined' };

const answerOf = (value: unknown): RsvpAnswer | null =>
  RSVP_ANSWERS.find((answer) => answer === value) ?? null;

/** The meeting as the page shows it, in the participant's zone. */
const shown = ({ meeting, user }: RsvpTarget): string =>
  `    <p><strong>${escapeHtml(meeting.title)}</strong></p>
    <p>${escapeHtml(formatWhen(new Date(meeting.startTime), readerZone(user)))}` +
  `${meeting.location ? `<br />${escapeHtml(meeting.location)}` : ''}</p>`;

/** A form whose button answers (the only way a link changes anything). */
const form = (token: string, answer: RsvpAnswer): string =>
  `    <form method="post" action="${MAIL_PATHS.rsvp}/${encodeURIComponent(token)}">
      <input type="hidden" name="answer" value="${answer}" />
      <button type="submit">${LABEL[answer]}</button>
    </form>`;

/**
 * The pages of the Accept and Decline links of invitations, at MAIL_PATHS.rsvp: `GET` shows the
 * meeting and a button, and changes nothing (mail scanners open links); the button's `POST`
 * answers as approveMeeting or declineMeeting would, idempotently. A forged, expired or revoked
 * link, or an answer the meeting refuses, gets a page saying so, never a 500.
 */
export function rsvpRoutes(options: {
  createContext: (request: RequestInfo) => Promise<Context>;
  logger: Logger;
}): Router {
  const router = Router();
  const failed = (res: Response, error: unknown): void => {
    if (error instanceof RsvpRefusedError) {
      const { status, text } = REFUSED[error.why];
      sendPage(res, status, 'Link not valid', `    <p>${escapeHtml(text)}</p>`);
    } else if (error instanceof AppError) {
      sendPage(res, 409, 'Not answered', `    <p>${escapeHtml(error.message)}</p>`);
    } else {
      options.logger.error({ component: 'mail', err: error }, 'RSVP page failed');
      sendPage(
        res,
        503,
        'Please try again',
        '    <p>The invitation could not be answered now.</p>',
      );
    }
  };
  const contextOf = (req: Request) =>
    options.createContext({ authorization: undefined, ip: req.ip ?? '' });
  router.get(ROUTE, async (req, res) => {
    labelRoute(`${MAIL_PATHS.rsvp}${ROUTE}`);
    const token = String(req.params['token']);
    try {
      const target = await (await contextOf(req)).services.mail.rsvpTarget(token);
      const asked = answerOf(req.query['answer']);
      const buttons = (asked ? [asked] : RSVP_ANSWERS).map((answer) => form(token, answer));
      sendPage(res, 200, 'Your answer', `${shown(target)}\n${buttons.join('\n')}`);
    } catch (error) {
      failed(res, error);
    }
  });
  router.post(ROUTE, express.urlencoded({ extended: false, limit: '4kb' }), async (req, res) => {
    labelRoute(`${MAIL_PATHS.rsvp}${ROUTE}`);
    const token = String(req.params['token']);
    const answer = answerOf((req.body as Record<string, unknown> | undefined)?.['answer']);
    if (!answer) {
      sendPage(res, 400, 'No answer', '    <p>Choose Accept or Decline.</p>');
      return;
    }
    try {
      const target = await (await contextOf(req)).services.mail.rsvp(token, answer);
      sendPage(
        res,
        200,
        `You ${DONE[answer]}`,
        `${shown(target)}\n    <p>You ${DONE[answer]} this invitation.</p>`,
      );
    } catch (error) {
      failed(res, error);
    }
  });
  return router;
}
