import {
  ERROR_STATUS,
  type ErrorBody,
  type ErrorCode,
  type ErrorDetail,
} from '@animal-store/contract';

/** A failure the client is meant to see, carried to the error mapper as an Error body. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: ErrorDetail[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.details = options.details;
    this.headers = options.headers ?? {};
  }

  toBody(): ErrorBody {
    const body: ErrorBody = { code: this.code, message: this.message, status: this.status };
    if (this.details) body.details = this.details;
    return body;
  }
}
