import { curlCommand } from './http/curl.js';
import { KEY_VARIABLE, type RecordedRequest, type RecordedResponse } from './http/exchange.js';
import type { ConformanceReport, RuleOutcome } from './run.js';

/** Enough of a body to see what went wrong without flooding the terminal. */
const BODY_SHOWN = 2000;

const MARK: Record<RuleOutcome['result'], string> = { passed: '✓', failed: '✗', skipped: '-' };

const indented = (text: string, by: string) =>
  text
    .split('\n')
    .map((line) => `${by}${line}`)
    .join('\n');

const shortened = (text: string) =>
  text.length > BODY_SHOWN ? `${text.slice(0, BODY_SHOWN)}… (${text.length} characters)` : text;

function requestLines(request: RecordedRequest): string[] {
  const body =
    request.body &&
    `${request.body.contentType ?? 'no Content-Type'}, ${request.body.text.length} characters`;
  // A target sent as it is (a `#` in it, `*`) is shown as sent, with where it went.
  const target =
    request.target === undefined
      ? request.url
      : `${request.target} (the request target, to ${new URL(request.url).origin})`;
  return [`Request:  ${request.method} ${target}${body ? ` (body: ${body})` : ''}`];
}

function responseLines(response: RecordedResponse): string[] {
  const headers = Object.entries(response.headers).map(([name, value]) => `${name}: ${value}`);
  return [
    `Answer:   ${response.status} ${response.statusText}`,
    indented([...headers, '', shortened(response.body)].join('\n'), '          '),
  ];
}

function failureLines(outcome: Extract<RuleOutcome, { result: 'failed' }>): string[] {
  const lines = [outcome.reason];
  if (outcome.request) lines.push(...requestLines(outcome.request));
  if (outcome.response) lines.push(...responseLines(outcome.response));
  if (outcome.request) lines.push(`Replay:   ${curlCommand(outcome.request)}`);
  return lines;
}

function ruleLines(rule: string, outcome: RuleOutcome): string[] {
  const head = `  ${MARK[outcome.result]} ${rule}`;
  if (outcome.result === 'passed') return [head];
  if (outcome.result === 'skipped') return [`${head} (skipped: ${outcome.reason})`];
  return [head, indented(failureLines(outcome).join('\n'), '      ')];
}

function modeLine(report: ConformanceReport): string {
  const writes = report.allowWrites
    ? 'with writes (--allow-writes: pets were created)'
    : 'read-only (no pet created; bodies refused before any write were sent: invalid ones, over 16 KiB, not JSON)';
  return `Mode: ${writes}; plan: ${report.plan ?? 'not given'}`;
}

/** The report as the command prints it: the settings seen, each rule, and a count. */
export function formatReport(report: ConformanceReport): string {
  const lines = [
    `Conformance check of ${report.baseUrl} against the Animal Store interface v1`,
    modeLine(report),
    '',
  ];
  if (report.observed.length > 0) {
    lines.push('Observed settings');
    for (const [setting, value] of report.observed) lines.push(`  ${setting}: ${value}`);
    lines.push('');
  }
  let group: string | undefined;
  for (const { group: name, rule, outcome } of report.rules) {
    if (name !== group) {
      if (group !== undefined) lines.push('');
      lines.push(name);
      group = name;
    }
    lines.push(...ruleLines(rule, outcome));
  }
  const count = (result: RuleOutcome['result']) =>
    report.rules.filter(({ outcome }) => outcome.result === result).length;
  lines.push(
    '',
    `${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} skipped (${report.requestsSent} requests sent)`,
  );
  if (count('failed') > 0) {
    lines.push(
      `The curl commands read the key from $${KEY_VARIABLE}: export ${KEY_VARIABLE}=<your key> first.`,
    );
  }
  return `${lines.join('\n')}\n`;
}
