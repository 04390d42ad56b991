import { TurnBatch } from './turn-batch.js';

/**
 * Resumes the callers of replies that arrive in one turn together, in that turn's check phase.
 * PostgreSQL answers each statement on its own pooled connection, in its own socket read; passed
 * to the database client (`continueReplies`), this lets the requests whose statements were
 * answered in one turn go on through Prisma and the server side by side, as the requests of one
 * turn do after admission, so that their next statements are shared too.
 */
export function resumingRepliesTogether(): <T>(reply: Promise<T>) => Promise<T> {
  const resumes = new TurnBatch<() => void>((waiting) => {
    for (const resume of waiting) resume();
  });
  return async (reply) => {
    const value = await reply;
    await new Promise<void>((resume) => resumes.add(resume));
    return value;
  };
}
