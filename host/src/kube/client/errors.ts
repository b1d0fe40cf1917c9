// One way to read an apiserver failure, whichever path it came through: our own requests throw KubeApiError,
// client-node's generated clients (typed-api.ts) throw ApiException whose `body` is raw JSON text for codes their
// spec does not list (409, 422, 429, and in practice 404 too), and transport failures are plain Errors without a
// code. ApiException is recognised by its shape, so the runtime need not load client-node.

import { errorMessage } from '../../util/error-message.ts';

export interface ApiErrorInfo {
  /** HTTP status; undefined when no response arrived (connection refused, reset, timeout). */
  code: number | undefined;
  /** metav1.StatusReason: NotFound, Conflict, AlreadyExists, Invalid, Expired, TooManyRequests, ... */
  reason: string;
  message: string;
  /** From a Status' details.retryAfterSeconds (429, some 5xx). */
  retryAfterSeconds?: number;
}

// Reasons the apiserver uses for each code, for bodies that are not a Status (a proxy's HTML error page).
const REASON_BY_CODE: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Expired',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

export class KubeApiError extends Error {
  readonly code: number | undefined;
  readonly reason: string;
  readonly retryAfterSeconds: number | undefined;

  constructor(info: ApiErrorInfo) {
    super(info.message);
    this.name = 'KubeApiError';
    this.code = info.code;
    this.reason = info.reason;
    this.retryAfterSeconds = info.retryAfterSeconds;
  }

  /** From an HTTP status and the response text (a metav1.Status as JSON, or anything else). */
  static fromResponse(code: number, bodyText: string, what = ''): KubeApiError {
    return new KubeApiError(statusInfo(code, parseMaybeJson(bodyText), what));
  }
}

/** Reads any error thrown by a Kubernetes call into {code, reason, message}. Never throws. */
export function apiErrorInfo(err: unknown): ApiErrorInfo {
  if (err instanceof KubeApiError) {
    return {
      code: err.code,
      reason: err.reason,
      message: err.message,
      ...(err.retryAfterSeconds !== undefined ? { retryAfterSeconds: err.retryAfterSeconds } : {}),
    };
  }
  if (isApiException(err)) {
    const body: unknown = typeof err.body === 'string' ? parseMaybeJson(err.body) : err.body;
    return statusInfo(err.code, body, '');
  }
  // A watch status (`{type: 'ERROR', object: Status}`) or a bare Status passed on as an error.
  if (isRecord(err) && err.kind === 'Status' && typeof err.code === 'number') return statusInfo(err.code, err, '');
  const message = errorMessage(err);
  return { code: undefined, reason: 'Unknown', message };
}

export const isNotFound = (err: unknown): boolean => apiErrorInfo(err).code === 404;
export const isConflict = (err: unknown): boolean => apiErrorInfo(err).code === 409;
/** 410: the resourceVersion asked for is older than what the apiserver keeps (relist). */
export const isGone = (err: unknown): boolean => apiErrorInfo(err).code === 410;

function statusInfo(code: number, body: unknown, what: string): ApiErrorInfo {
  const fallbackReason = REASON_BY_CODE[code] ?? (code >= 500 ? 'InternalError' : 'Unknown');
  if (isRecord(body) && body.kind === 'Status') {
    const details = isRecord(body.details) ? body.details : {};
    const retry = details.retryAfterSeconds;
    return {
      code: typeof body.code === 'number' && body.code > 0 ? body.code : code,
      reason: typeof body.reason === 'string' && body.reason !== '' ? body.reason : fallbackReason,
      message: typeof body.message === 'string' ? body.message : `${what} ${fallbackReason}`.trim(),
      ...(typeof retry === 'number' ? { retryAfterSeconds: retry } : {}),
    };
  }
  const text = typeof body === 'string' ? body.slice(0, 300) : '';
  return { code, reason: fallbackReason, message: [what, `HTTP ${code}`, text].filter(Boolean).join(': ') };
}

function parseMaybeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** client-node's ApiException: an Error with a numeric HTTP `code` and the response `body`. */
function isApiException(err: unknown): err is Error & { code: number; body: unknown } {
  return err instanceof Error && typeof (err as { code?: unknown }).code === 'number' && 'body' in err;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
