import { isUtf8 } from 'node:buffer';
import { ERROR_MESSAGES } from '@animal-store/contract';
import express, { type Request, type RequestHandler } from 'express';
import { ApiError } from './api-error.js';
import { MAX_BODY_BYTES } from './limits.js';
import { contextOf } from './request-context.js';

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** Bodies that decode to nothing (`Content-Encoding: gzip` around zero bytes). */
const decodedToNothing = new WeakSet<object>();

const parseJson = express.json({
  limit: MAX_BODY_BYTES,
  // Any JSON value parses; whether it is an acceptable body is the contract's call.
  strict: false,
  type: 'application/json',
  // body-parser reads a body without JSON text as {}: a body that decodes to nothing is an empty
  // body, and a byte order mark alone (which it drops) is no JSON at all.
  verify: (req, _res, bytes) => {
    if (!isUtf8(bytes)) throw new ApiError(ERROR_MESSAGES.bodyNotUtf8);
    if (bytes.length === 0) decodedToNothing.add(req);
    else if (bytes.equals(UTF8_BOM)) throw new ApiError(ERROR_MESSAGES.bodyNotJson);
  },
});

/** Reads a body of any type, only to learn whether a chunked one is empty. */
const readRaw = express.raw({ type: () => true, limit: MAX_BODY_BYTES });

const payloadTooLarge = () => new ApiError(ERROR_MESSAGES.bodyTooLarge);

const BODY_PARSER_ERRORS: Record<string, () => ApiError> = {
  'entity.too.large': payloadTooLarge,
  'charset.unsupported': () => new ApiError(ERROR_MESSAGES.charsetNotUtf8),
  'encoding.unsupported': () => new ApiError(ERROR_MESSAGES.encodingUnsupported),
};

/** Whatever else stops the body from being read (bad JSON, a corrupt gzip stream) is the client's. */
function bodyError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const type = (error as { type?: unknown } | null)?.type;
  const known = typeof type === 'string' ? BODY_PARSER_ERRORS[type] : undefined;
  return known?.() ?? new ApiError(ERROR_MESSAGES.bodyNotJson);
}

const unsupportedMediaType = () => new ApiError(ERROR_MESSAGES.bodyNotDeclaredJson);

/** `Content-Length: 0` announces an empty body, which needs no media type. */
function announcesEmptyBody(req: Request): boolean {
  return (
    req.headers['transfer-encoding'] === undefined &&
    Number(req.headers['content-length'] ?? 0) === 0
  );
}

/**
 * A body announced larger than the limit, as sent, with no Content-Encoding (the limit is on
 * the decoded body, which a compressed one's length does not tell). It is refused before any of
 * it is read: body-parser would answer only once the whole body had arrived, and a client that
 * announced more than it sends would wait for its answer until the request deadline. Node
 * discards the unread body after the answer.
 */
function announcesOversizedBody(req: Request): boolean {
  const encoding = req.headers['content-encoding']?.trim().toLowerCase() ?? 'identity';
  return (
    encoding === 'identity' &&
    req.headers['transfer-encoding'] === undefined &&
    Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES
  );
}

const CHARSET_PARAMETER = /;\s*charset\s*=\s*"?([^";\s]+)"?/i;

/**
 * JSON is UTF-8 (RFC 8259 §8.1): a body declared in another charset is not decoded by guess.
 * UTF-8 is also named `utf8` (WHATWG Encoding), a name body-parser refuses: it is told `utf-8`.
 */
function acceptsCharset(req: Request): boolean {
  const contentType = req.headers['content-type'] ?? '';
  const charset = CHARSET_PARAMETER.exec(contentType)?.[1]?.toLowerCase();
  if (charset === undefined || charset === 'utf-8') return true;
  if (charset !== 'utf8') return false;
  req.headers['content-type'] = contentType.replace(CHARSET_PARAMETER, '; charset=utf-8');
  return true;
}

/** Parses a JSON body, refusing any non-empty body that is not declared `application/json`. */
const jsonBody: RequestHandler = (req, res, next) => {
  if (announcesEmptyBody(req)) return next();
  if (req.is('application/json')) {
    if (!acceptsCharset(req)) {
      return next(new ApiError(ERROR_MESSAGES.charsetNotUtf8));
    }
    if (announcesOversizedBody(req)) return next(payloadTooLarge());
    parseJson(req, res, (error?: unknown) => {
      if (error === undefined && decodedToNothing.has(req)) req.body = undefined;
      next(error === undefined ? undefined : bodyError(error));
    });
    return;
  }
  if (req.headers['transfer-encoding'] === undefined) return next(unsupportedMediaType());
  // A chunked body may still turn out empty; only a non-empty one needs to be JSON.
  readRaw(req, res, (error?: unknown) => {
    if (error !== undefined) return next(bodyError(error));
    const bytes = req.body as Buffer | undefined;
    req.body = undefined;
    next(bytes && bytes.length > 0 ? unsupportedMediaType() : undefined);
  });
};

/**
 * The body stage: an operation whose route declares a request body gets it read as JSON here,
 * for its contract to validate; no other request has its body read.
 */
export const requestBody: RequestHandler = (req, res, next) => {
  const { target } = contextOf(res);
  if (target.kind === 'operation' && target.endpoint.takesBody) return jsonBody(req, res, next);
  next();
};
