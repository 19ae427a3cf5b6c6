import { describe, expect, it } from 'vitest';
import { DashboardQuestions, type PageQuestion } from './dashboard-confirm.js';

const REQUEST = {
  toolId: 'write_file',
  action: 'write a.txt',
  risk: 'MEDIUM',
  sessionId: 's',
} as const;

describe('DashboardQuestions', () => {
  it('takes an answer only from the principal whose form call asked, and only once', async () => {
    const questions = new DashboardQuestions();
    let asked: PageQuestion | undefined;
    const decision = questions.confirmFor('token:alice', (question) => {
      asked = question;
    })(REQUEST);
    const id = asked?.id ?? '';
    expect(id).toMatch(/^[\w-]{43}$/);
    expect(questions.answer(id, 'token:bob', 'allow_once')).toBe(false);
    expect(questions.answer('made-up', 'token:alice', 'allow_once')).toBe(false);
    expect(questions.answer(id, 'token:alice', 'allow_once')).toBe(true);
    expect(await decision).toBe('allow_once');
    expect(questions.answer(id, 'token:alice', 'deny')).toBe(false);
  });

  it('denies when the call is cancelled before anyone answers', async () => {
    const questions = new DashboardQuestions();
    const controller = new AbortController();
    const decision = questions.confirmFor('local:local', () => {})(REQUEST, controller.signal);
    controller.abort();
    expect(await decision).toBe('deny');
  });
});
