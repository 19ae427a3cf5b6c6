import type {
  ConfirmationDecision,
  ConfirmationRequest,
  ConfirmFunction,
} from '@toolsys/core-tool-registry';
import { randomSecret } from './dashboard-sessions.js';

/** How long a question waits for the person at the form before it counts as denied: 5 minutes. */
const ANSWER_WAIT_MS = 5 * 60 * 1000;

/** A question sent to the page, as the page shows it. */
export interface PageQuestion {
  /** Names the question in the answer (random: no one else can answer it). */
  readonly id: string;
  readonly toolId: string;
  readonly action: string;
  readonly risk: string;
  readonly reason?: string;
}

/** The answers the page offers: once, or no (a form call is a session of its own). */
export type PageAnswer = Extract<ConfirmationDecision, 'allow_once' | 'deny'>;

/**
 * Questions the dashboard's call form is asking, each owned by the principal whose form call asks
 * it: the page shows the question and posts the answer back; anyone else answering, or an id
 * never asked, finds nothing.
 */
export class DashboardQuestions {
  readonly #pending = new Map<string, { owner: string; answer: (decision: PageAnswer) => void }>();

  /**
   * A confirm function for one form call of `owner` (a principal key): each question goes to
   * `send` and waits for {@link answer}; a cancelled call or no answer within 5 minutes is a deny.
   */
  confirmFor(owner: string, send: (question: PageQuestion) => void): ConfirmFunction {
    return (request: ConfirmationRequest, signal?: AbortSignal) =>
      new Promise<ConfirmationDecision>((resolve) => {
        const id = randomSecret();
        const finish = (decision: PageAnswer) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          this.#pending.delete(id);
          resolve(decision);
        };
        const onAbort = () => finish('deny');
        const timer = setTimeout(onAbort, ANSWER_WAIT_MS);
        timer.unref();
        if (signal?.aborted) return finish('deny');
        signal?.addEventListener('abort', onAbort, { once: true });
        this.#pending.set(id, { owner, answer: finish });
        send({
          id,
          toolId: request.toolId,
          action: request.action,
          risk: request.risk,
          ...(request.reason !== undefined ? { reason: request.reason } : {}),
        });
      });
  }

  /** Answers question `id` for `owner`; false when there is no such question of theirs. */
  answer(id: string, owner: string, decision: PageAnswer): boolean {
    const pending = this.#pending.get(id);
    if (pending === undefined || pending.owner !== owner) return false;
    pending.answer(decision);
    return true;
  }
}
