import { KEY_VARIABLE, REVOKED_KEY_VARIABLE, type RecordedRequest } from './exchange.js';

/** Single quotes keep every character literal in a POSIX shell; a quote itself is closed and escaped. */
const quoted = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

function authorizationArgument(request: RecordedRequest): string[] {
  const { credential } = request;
  if (credential === 'none') return [];
  // Double quotes, so that the shell puts the key in from its variable.
  if (credential === 'key') return ['-H', `"Authorization: Bearer $${KEY_VARIABLE}"`];
  if (credential === 'revoked-key') {
    return ['-H', `"Authorization: Bearer $${REVOKED_KEY_VARIABLE}"`];
  }
  return ['-H', quoted(`Authorization: ${credential.authorization}`)];
}

/** A body longer than this is written as a shell expression that makes it, when one is short. */
const PRINTED_BODY_LENGTH = 1024;

/**
 * A shell expression that makes `text`: its longest run of one character from `head` and `tr`,
 * the text around it as it is. None when no run is long enough to be worth it.
 */
function shellMaking(text: string): string | undefined {
  const runs = [...text.matchAll(/(.)\1{255,}/gs)];
  const run = runs.reduce<RegExpExecArray | undefined>(
    (longest, found) => (found[0].length > (longest?.[0].length ?? 0) ? found : longest),
    undefined,
  );
  if (run === undefined) return undefined;
  const before = text.slice(0, run.index);
  const after = text.slice(run.index + run[0].length);
  const repeated = `"$(head -c ${run[0].length} /dev/zero | tr '\\0' ${quoted(run[1] as string)})"`;
  return `$(printf '%s%s%s' ${quoted(before)} ${repeated} ${quoted(after)})`;
}

function bodyArguments(request: RecordedRequest): string[] {
  const { body } = request;
  if (body === undefined) return [];
  const type =
    body.contentType === undefined ? [] : ['-H', quoted(`Content-Type: ${body.contentType}`)];
  // curl adds a Content-Type of its own to --data-binary unless told not to.
  const untyped = body.contentType === undefined ? ['-H', quoted('Content-Type:')] : [];
  const shell =
    body.shell ?? (body.text.length > PRINTED_BODY_LENGTH ? shellMaking(body.text) : undefined);
  const data = shell === undefined ? quoted(body.text) : `"${shell}"`;
  return [...type, ...untyped, '--data-binary', data];
}

/** A header's argument: its value as sent, or the shell expression that makes a long one. */
function headerArgument(request: RecordedRequest, name: string, value: string): string {
  const shell = request.headerShell?.[name];
  // Double quotes, so that the shell runs the expression; a name has no character they change.
  return shell === undefined ? quoted(`${name}: ${value}`) : `"${name}: ${shell}"`;
}

/**
 * A curl command that sends `request` again, with the key read from `$ANIMAL_STORE_KEY` (the
 * revoked one from `$ANIMAL_STORE_REVOKED_KEY`).
 */
export function curlCommand(request: RecordedRequest): string {
  const headers = Object.entries(request.headers).flatMap(([name, value]) => [
    '-H',
    headerArgument(request, name, value),
  ]);
  // -X HEAD would make curl wait for a body the answer never has.
  const method = request.method === 'HEAD' ? ['-I'] : ['-i', '-X', request.method];
  // curl, like fetch, would drop a fragment from the URL: the target is given as sent.
  const target =
    request.target === undefined
      ? [quoted(request.url)]
      : ['--request-target', quoted(request.target), quoted(new URL(request.url).origin)];
  return [
    'curl',
    ...method,
    ...target,
    ...authorizationArgument(request),
    ...headers,
    ...bodyArguments(request),
  ].join(' ');
}
