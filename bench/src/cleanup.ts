/**
 * Everything the bench leaves behind (child processes, databases, temp folders, the worktree) is
 * registered here as it is made, and undone in reverse order: on success, on failure and on
 * Ctrl-C alike, so an interrupted run leaves no server running and no database behind.
 */
type Undo = () => Promise<void> | void;

interface Entry {
  label: string;
  undo: Undo;
}

const entries: Entry[] = [];
let running: Promise<void> | undefined;

export interface CleanupStep {
  /** Runs the step now, once, rather than at the end. */
  now(): Promise<void>;
  /** Forgets the step: what it would undo is already gone. */
  dismiss(): void;
}

/** Registers `undo`, to run at the end unless the step is run or dismissed before. */
export function onCleanup(label: string, undo: Undo): CleanupStep {
  const entry: Entry = { label, undo };
  entries.push(entry);
  const take = () => {
    const index = entries.indexOf(entry);
    if (index !== -1) entries.splice(index, 1);
    return index !== -1;
  };
  return {
    now: async () => {
      if (take()) await runOne(entry);
    },
    dismiss: () => {
      take();
    },
  };
}

async function runOne({ label, undo }: Entry): Promise<void> {
  try {
    await undo();
  } catch (error) {
    // One failed step must not keep the others from running.
    console.error(`cleanup: ${label} failed: ${error instanceof Error ? error.message : error}`);
  }
}

/** Whether cleanup has begun: an interrupted run stops rather than starting its next step. */
export const cleaningUp = (): boolean => running !== undefined;

/** Undoes everything still registered, newest first. Safe to call more than once. */
export function cleanUp(): Promise<void> {
  running ??= (async () => {
    while (entries.length > 0) {
      const entry = entries.pop();
      if (entry) await runOne(entry);
    }
  })();
  return running;
}

/** A signal this soon after the first is the same Ctrl-C, relayed by a parent (pnpm). */
const SAME_INTERRUPT_MS = 2_000;

/**
 * Ctrl-C (and a plain `kill`) clean up before exiting. Pressing Ctrl-C again later exits at
 * once, for a cleanup step that hangs.
 */
export function cleanUpOnSignals(): void {
  let interruptedAt: number | undefined;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      if (interruptedAt !== undefined) {
        if (Date.now() - interruptedAt > SAME_INTERRUPT_MS) process.exit(130);
        return;
      }
      interruptedAt = Date.now();
      console.error(`\n${signal}: stopping servers and removing what the bench made…`);
      void cleanUp().finally(() => process.exit(130));
    });
  }
}
