import type { EventHub } from './event-hub';

/** How the notices of one topic reach only those who may hear them. */
export interface AudienceRelayOptions<N> {
  /** The topic every notice is heard on. */
  from: string;
  /** The family of the topics it is handed on to (`<family>:<key>`, one per audience member). */
  family: string;
  /**
   * The topics of those who may hear a notice, found by a read (who may see a change). A read
   * that fails hands the notice to every topic of the family: each listener still judges it.
   */
  audienceOf: (notice: N) => Promise<readonly string[]>;
  /** Hears a read that failed (the notice went to everyone of the family). */
  onError?: (error: unknown) => void;
}

/**
 * Hands each notice of `from` on to the topics of its audience only, so that a listener hears
 * (and queues) only what may concern it, however many others listen: the work is one read per
 * notice and one hand-over per listener concerned, not a check by every listener of every notice.
 * Reads run side by side; notices are handed on in the order they were heard. Nothing is read
 * while no topic of the family has a listener. Answers the function that stops it.
 */
export function relayAudience<N>(hub: EventHub<N>, options: AudienceRelayOptions<N>): () => void {
  const { from, family, audienceOf, onError } = options;
  let handedOn: Promise<void> = Promise.resolve();
  const stop = hub.on(from, (notice) => {
    if (hub.listenersIn(family) === 0) {
      return;
    }
    const audience = audienceOf(notice).catch((error: unknown) => {
      onError?.(error);
      return hub.topicsIn(family);
    });
    handedOn = handedOn.then(async () => {
      // Once per topic, however many times the audience names it.
      for (const topic of new Set(await audience)) {
        hub.deliverOn(topic, notice);
      }
    });
  });
  return stop;
}
