const startedAt = Date.now();

/** What the bench is doing, on stderr: stdout carries only the report. */
export function progress(message: string): void {
  const seconds = ((Date.now() - startedAt) / 1000).toFixed(0).padStart(4);
  console.error(`[${seconds}s] ${message}`);
}
