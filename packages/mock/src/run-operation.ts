/** Steps 7 to 9 of the order of checks: the body, the validation of the request, the operation. */
import type { AppRoute } from '@ts-rest/core';
import {
  type Answer,
  IMPLEMENTATIONS,
  type Implementation,
  type OperationContext,
} from './operations.js';
import { checkWith, headerObject, queryObject, readJsonBody } from './request-input.js';
import { errorResponse, jsonResponse, validationFailed } from './responses.js';
import type { RouteMatch } from './routes.js';

const REFUSAL_MESSAGES = {
  unsupported_media_type: 'Send the request body as JSON with Content-Type: application/json.',
  payload_too_large: 'The request body is larger than 16 KiB.',
  malformed_json: 'The request body could not be read as JSON.',
} as const;

function implementationOf({ served }: RouteMatch): Implementation<AppRoute> {
  const implementations = IMPLEMENTATIONS[served.resource] as unknown as Record<
    string,
    Implementation<AppRoute>
  >;
  const implementation = implementations[served.name];
  if (implementation === undefined) throw new Error(`no implementation of ${served.name}`);
  return implementation;
}

export async function runOperation(
  request: Request,
  match: RouteMatch,
  context: Omit<OperationContext, 'sentBody'>,
): Promise<Response> {
  const route = match.served.route as AppRoute;
  const implementation = implementationOf(match);

  let sentBody: unknown;
  if ('body' in route) {
    const reading = await readJsonBody(request);
    if (!reading.ok) return errorResponse(reading.refusal, REFUSAL_MESSAGES[reading.refusal]);
    sentBody = reading.json;
  }

  // A path parameter that cannot be what it names finds nothing: 404, not 400.
  const params = checkWith(route.pathParams, match.pathParams);
  if (!params.ok) return errorResponse('not_found', 'There is nothing at this path.');

  const rawQuery = queryObject(new URL(request.url).searchParams);
  const query = checkWith(route.query, rawQuery);
  const headers = checkWith(route.headers, headerObject(request.headers));
  const body = 'body' in route ? checkWith(route.body, sentBody) : checkWith(undefined, undefined);
  const operationContext: OperationContext = { ...context, sentBody };
  // Every invalid part is named at once, the checks the schemas cannot make beside theirs.
  const details = [
    ...(query.ok ? [] : query.details),
    ...((await implementation.check?.({ query: rawQuery }, operationContext)) ?? []),
    ...(headers.ok ? [] : headers.details),
    ...(body.ok ? [] : body.details),
  ];
  if (details.length > 0 || !query.ok || !headers.ok || !body.ok) return validationFailed(details);

  const answer: Answer<AppRoute> = await implementation.run(
    { params: params.value, query: query.value, headers: headers.value, body: body.value } as never,
    operationContext,
  );
  return jsonResponse(answer.status, answer.body, answer.headers);
}
