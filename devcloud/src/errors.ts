// The one error shape every endpoint answers with: {error: {code, message, field?}}.
// Clients branch on `code`, never on `message`; both the status and the code are part of the API.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';

export type ErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'already_exists'
  | 'invalid_state'
  | 'vip_pool_exhausted'
  | 'vip_in_use'
  | 'address_in_use'
  | 'address_pool_exhausted'
  | 'cidr_in_use'
  | 'throttled'
  | 'internal_error'
  | 'unavailable';

export interface ErrorBody {
  error: { code: ErrorCode; message: string; field?: string };
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly field: string | undefined;
  /** Seconds, sent as the Retry-After header (429 and 503). */
  readonly retryAfter: number | undefined;

  constructor(status: number, code: ErrorCode, message: string, extra: { field?: string; retryAfter?: number } = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = extra.field;
    this.retryAfter = extra.retryAfter;
  }

  body(): ErrorBody {
    return { error: { code: this.code, message: this.message, ...(this.field ? { field: this.field } : {}) } };
  }
}

export const invalid = (field: string, message: string): ApiError =>
  new ApiError(400, 'invalid_request', `${field}: ${message}`, { field });

export const notFound = (what: string): ApiError => new ApiError(404, 'not_found', `${what} not found`);

export const conflict = (code: ErrorCode, message: string): ApiError => new ApiError(409, code, message);

/** "/listeners/0/port" + missing "nodePort" -> "listeners[0].port" style names a client can map to its input. */
function fieldName(instancePath: string, extra: string | undefined): string {
  const segments = instancePath.split('/').filter((s) => s !== '');
  if (extra !== undefined) segments.push(extra);
  let out = '';
  for (const s of segments) out += /^\d+$/.test(s) ? `[${s}]` : out === '' ? s : `.${s}`;
  return out;
}

interface AjvIssue {
  instancePath?: string;
  params?: { missingProperty?: string; additionalProperty?: string };
  message?: string;
}

function fromValidation(err: FastifyError): ApiError {
  const issue = (err.validation?.[0] ?? {}) as AjvIssue;
  const extra = issue.params?.missingProperty ?? issue.params?.additionalProperty;
  const field = fieldName(issue.instancePath ?? '', extra);
  const where = err.validationContext ?? 'body';
  const what =
    issue.params?.additionalProperty !== undefined
      ? 'is not a known property'
      : issue.params?.missingProperty !== undefined
        ? 'is required'
        : (issue.message ?? 'invalid');
  const label = field === '' ? where : field;
  return new ApiError(400, 'invalid_request', `${where === 'body' ? '' : `${where}.`}${label}: ${what}`, {
    field: label,
  });
}

function toApiError(err: FastifyError | ApiError): ApiError {
  if (err instanceof ApiError) return err;
  if (err.validation) return fromValidation(err);
  const status = err.statusCode ?? 500;
  // Fastify's own 4xx (bad JSON 400, wrong content type 415, body too large 413) are client mistakes.
  if (status >= 400 && status < 500) return new ApiError(status, 'invalid_request', err.message);
  return new ApiError(500, 'internal_error', 'internal error');
}

export function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  if (error.retryAfter !== undefined) reply.header('retry-after', String(error.retryAfter));
  return reply.code(error.status).send(error.body());
}

export function errorHandler(err: FastifyError | ApiError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const api = toApiError(err);
  if (api.status === 500 && !(err instanceof ApiError)) request.log.error({ err }, 'unhandled error');
  return sendError(reply, api);
}

export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendError(reply, new ApiError(404, 'not_found', `no endpoint ${request.method} ${request.url.split('?')[0]}`));
}
