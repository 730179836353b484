/**
 * The error family of the API. Each class is named for a `code` of the interface spec,
 * so a controller throws `new NotFound('Blog not found')` and the error handler
 * turns it into `404 {code: "NotFound", message}`.
 */
/** Why an attempt to authenticate was refused: the label of the auth_failures_total metric. */
export type AuthenticationFailure =
  | 'access_token_missing'
  | 'access_token_expired'
  | 'access_token_invalid'
  | 'refresh_token_missing'
  | 'refresh_token_invalid'
  | 'account_deleted'
  | 'unknown_email'
  | 'wrong_password'
  | 'metrics_token_invalid';

/**
 * Every `code` an error body carries, in the order the OpenAPI document lists them (its Error schema).
 * The compiler keeps the list exact: each class below must use one of these, and each of these must be
 * some class's code (see the check at the end of this file).
 */
export const ERROR_CODES = [
  'BadRequest',
  'AuthenticationError',
  'AuthorizationError',
  'NotFound',
  'MethodNotAllowed',
  'ValidationError',
  'ServerError',
  'ServiceUnavailable',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export abstract class HttpError extends Error {
  abstract readonly status: number;
  abstract readonly code: ErrorCode;
  /** Set when this error refuses an authentication attempt (counted by the metrics, by reason). */
  authenticationFailure?: AuthenticationFailure;

  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }

  /** The JSON body the client receives. */
  body(): Record<string, unknown> {
    return { code: this.code, message: this.message };
  }

  /** Marks this error as the refusal of an authentication attempt, e.g. a login's unknown email (a 404 by the spec). */
  refusingAuthentication(reason: AuthenticationFailure): this {
    this.authenticationFailure = reason;
    return this;
  }
}

export class BadRequest extends HttpError {
  readonly status = 400;
  readonly code = 'BadRequest';
}

export class AuthenticationError extends HttpError {
  readonly status = 401;
  readonly code = 'AuthenticationError';

  constructor(message: string, reason: AuthenticationFailure) {
    super(message);
    this.authenticationFailure = reason;
  }
}

export class AuthorizationError extends HttpError {
  readonly status = 403;
  readonly code = 'AuthorizationError';
}

export class NotFound extends HttpError {
  readonly status = 404;
  readonly code = 'NotFound';
}

/** 405: the path exists, the method does not (the response carries an Allow header). */
export class MethodNotAllowed extends HttpError {
  readonly status = 405;
  readonly code = 'MethodNotAllowed';
}

/** 413: the spec gives an oversized upload the code `ValidationError` with a message. */
export class PayloadTooLarge extends HttpError {
  readonly status = 413;
  readonly code = 'ValidationError';
}

/** 412: a static file's If-Match or If-Unmodified-Since did not hold (middlewares/static-files.ts). */
export class PreconditionFailed extends HttpError {
  readonly status = 412;
  readonly code = 'BadRequest';
}

/** 416: a static file's Range lies past its end (middlewares/static-files.ts). */
export class RangeNotSatisfiable extends HttpError {
  readonly status = 416;
  readonly code = 'BadRequest';
}

export class UnsupportedMediaType extends HttpError {
  readonly status = 415;
  readonly code = 'BadRequest';
}

/** A dependency of ours (media storage) failed; the client may retry later. */
export class BadGateway extends HttpError {
  readonly status = 502;
  readonly code = 'ServerError';
}

/**
 * 503: the database cannot be reached or did not answer in time, or a feature's dependency is not
 * configured (mail without SMTP_URL). Not the client's fault and not a bug: the client may retry after
 * `retryAfterSeconds` (sent as Retry-After) when given; without it, retrying will not help.
 */
export class ServiceUnavailable extends HttpError {
  readonly status = 503;
  readonly code = 'ServiceUnavailable';

  constructor(
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** One field error, exactly as express-validator's `mapped()` gives it. */
export interface FieldError {
  type: string;
  value: string;
  msg: string;
  path: string;
  location: string;
}

/** 400 `{code: "ValidationError", errors: {<field>: FieldError}}`. */
export class RequestValidationError extends HttpError {
  readonly status = 400;
  readonly code = 'ValidationError';

  constructor(readonly errors: Record<string, FieldError>) {
    super('Validation failed');
  }

  /** A single-field error raised outside express-validator (a duplicate key, a bad file). */
  static forField(path: string, msg: string, location = 'body', value = ''): RequestValidationError {
    return new RequestValidationError({ [path]: { type: 'field', value, msg, path, location } });
  }

  override body(): Record<string, unknown> {
    return { code: this.code, errors: this.errors };
  }
}

type CodeOf<T> = T extends { prototype: { code: infer C } } ? C : never;
type ThrownCode = CodeOf<
  | typeof BadRequest
  | typeof AuthenticationError
  | typeof AuthorizationError
  | typeof NotFound
  | typeof MethodNotAllowed
  | typeof PayloadTooLarge
  | typeof UnsupportedMediaType
  | typeof BadGateway
  | typeof ServiceUnavailable
  | typeof RequestValidationError
>;
type UnthrownCode = Exclude<ErrorCode, ThrownCode>;
/** Fails to compile, naming the code, when ERROR_CODES lists a code no class above carries. */
const _everyCodeIsThrown: [UnthrownCode] extends [never] ? true : UnthrownCode = true;
