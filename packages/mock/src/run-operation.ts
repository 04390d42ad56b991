/** Steps 7 to 9 of the order of checks: the body, the validation of the request, the operation. */
import { ERROR_MESSAGES, type ErrorDetail } from '@animal-store/contract';
import type { OperationContext } from './mocked-api.js';
import { checkWith, headerObject, queryObject, readJsonBody } from './request-input.js';
import { errorResponse, jsonResponse } from './responses.js';
import type { OperationEndpoint, PathParams } from './routes.js';

/**
 * A path that names no possible resource names a resource that does not exist: the first of the
 * route's parameters names it (`petId`: `No pet has id abc.`), as an operation says of an id no
 * record has.
 */
function noSuchResource(path: string, params: PathParams): Response {
  const [parameter] = Object.entries(params);
  return errorResponse(
    parameter ? ERROR_MESSAGES.noSuchResource(...parameter) : ERROR_MESSAGES.noRoute(path),
  );
}

/** Each field once, its first problem: a field its schema refused is not told again by a check. */
function eachFieldOnce(details: readonly ErrorDetail[]): ErrorDetail[] {
  const paths = new Set<string>();
  return details.filter(({ path }) => !paths.has(path) && paths.add(path));
}

/** The operation a request was routed to, on the path it was routed by. */
export interface OperationTarget {
  readonly endpoint: OperationEndpoint;
  readonly path: string;
  readonly params: PathParams;
}

export async function runOperation(
  request: Request,
  { endpoint, path, params: pathParams }: OperationTarget,
  context: Omit<OperationContext, 'sentBody'>,
): Promise<Response> {
  const { route, implementation, takesBody } = endpoint;
  let sentBody: unknown;
  if (takesBody) {
    const reading = await readJsonBody(request);
    if (!reading.ok) return errorResponse(reading.refusal);
    sentBody = reading.json;
  }

  const params = checkWith('path', route.pathParams, pathParams);
  if (!params.ok) return noSuchResource(path, pathParams);

  const sent = {
    query: queryObject(new URL(request.url).searchParams),
    headers: headerObject(request.headers),
  };
  const headers = checkWith('headers', route.headers, sent.headers);
  const query = checkWith('query', route.query, sent.query);
  const body = checkWith('body', 'body' in route ? route.body : undefined, sentBody);
  const operationContext: OperationContext = { ...context, sentBody };
  // Every invalid field is named at once, those the schemas cannot check beside theirs, in the
  // server's order: headers, query, body.
  const details = [
    ...(headers.ok ? [] : headers.details),
    ...eachFieldOnce([
      ...(query.ok ? [] : query.details),
      ...((await implementation.check?.(sent, operationContext)) ?? []),
    ]),
    ...(body.ok ? [] : body.details),
  ];
  if (details.length > 0 || !headers.ok || !query.ok || !body.ok) {
    return errorResponse(
      ERROR_MESSAGES.invalidFields(details.map(({ path }) => path)),
      {},
      details,
    );
  }

  const answer = await implementation.run(
    { params: params.value, query: query.value, headers: headers.value, body: body.value } as never,
    operationContext,
  );
  return jsonResponse(answer.status, answer.body, answer.headers);
}
