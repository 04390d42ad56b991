import {
  type ErrorBody,
  type ErrorCode,
  type ErrorDetail,
  type ErrorMessage,
  errorBodyOf,
} from '@animal-store/contract';

/**
 * A failure the client is meant to see, carried to the error mapper as an Error body. What it
 * says is an entry of the contract's `ERROR_MESSAGES`, the table the mock answers from too.
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string>;

  constructor(
    error: ErrorMessage,
    options: { details?: ErrorDetail[]; headers?: Record<string, string> } = {},
  ) {
    super(error.message);
    this.name = 'ApiError';
    this.code = error.code;
    this.status = errorBodyOf(error).status;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }

  toBody(): ErrorBody {
    return errorBodyOf({ code: this.code, message: this.message }, this.details);
  }
}
