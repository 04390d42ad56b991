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

function bodyArguments(request: RecordedRequest): string[] {
  const { body } = request;
  if (body === undefined) return [];
  const type =
    body.contentType === undefined ? [] : ['-H', quoted(`Content-Type: ${body.contentType}`)];
  // curl adds a Content-Type of its own to --data-binary unless told not to.
  const untyped = body.contentType === undefined ? ['-H', quoted('Content-Type:')] : [];
  const data = body.shell === undefined ? quoted(body.text) : `"${body.shell}"`;
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
