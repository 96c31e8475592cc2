import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, type DomainErrorKind } from '../domain/errors.ts';
import { isStorageUnavailable } from '../storage/unavailable.ts';
import { BodyTimeoutError } from './body-deadline.ts';

/** The HTTP status for each kind of domain error; the one place this mapping lives. */
export const STATUS_BY_KIND: Record<DomainErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
  budget_spent: 402,
};

/**
 * Seconds a client waits before retrying after storage could not answer: about what a database
 * restart or failover takes, without piling retries onto an engine that is coming back.
 */
export const STORAGE_RETRY_AFTER_SECONDS = 5;

// Fastify's own errors that the caller caused, worded for the caller.
const FASTIFY_ERRORS: Record<string, { status: number; message: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, message: 'Content-Type must be application/json' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, message: 'Content-Length does not match the body' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, message: 'Request body is too large' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, message: 'Request body is empty; send a JSON object' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, message: 'Request body is not valid JSON' },
};

const PART_NAMES: Record<string, string> = {
  body: 'request body',
  querystring: 'query parameters',
  params: 'path parameters',
  headers: 'headers',
};

interface ValidationIssue {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

/** One error shape for every failure: `{ error, details?, requestId }`, never internals. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof DomainError) {
      if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
      return reply.code(STATUS_BY_KIND[error.kind]).send({ error: error.message, requestId: request.id });
    }
    if (error.validation) {
      const context = error.validationContext ?? 'request';
      const details = (error.validation as ValidationIssue[]).map((issue) => ({
        message: describeIssue(context, issue),
      }));
      return reply.code(400).send({
        error: `Invalid ${PART_NAMES[context] ?? context}: ${details.map((d) => d.message).join('; ')}`,
        details,
        requestId: request.id,
      });
    }
    if (error instanceof BodyTimeoutError) {
      return reply.code(error.statusCode).send({ error: error.message, requestId: request.id });
    }
    const known = error.code ? FASTIFY_ERRORS[error.code] : undefined;
    if (known) return reply.code(known.status).send({ error: known.message, requestId: request.id });
    if (error instanceof SyntaxError || (error.statusCode === 400 && /JSON/.test(error.message))) {
      return reply.code(400).send({ error: 'Request body is not valid JSON', requestId: request.id });
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.code(error.statusCode).send({ error: 'Bad request', requestId: request.id });
    }
    if (isStorageUnavailable(error)) {
      // Not a bug: the database or analytics engine is restarting, failing over, overloaded or
      // unreachable. The client retries; the log says which failure it was.
      request.log.warn({ err: error }, 'storage unavailable');
      reply.header('retry-after', String(STORAGE_RETRY_AFTER_SECONDS));
      return reply.code(503).send({
        error: `Storage is unavailable for a moment (a database connection failed or timed out); retry after ${STORAGE_RETRY_AFTER_SECONDS} seconds.`,
        requestId: request.id,
      });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send({
      error: `Internal error. If it persists, report it with request id ${request.id}.`,
      requestId: request.id,
    });
  });

  app.setNotFoundHandler((request, reply) => {
    reply
      .code(404)
      .send({ error: `No route ${request.method} ${request.url.split('?')[0]}`, requestId: request.id });
  });
}

function describeIssue(context: string, issue: ValidationIssue): string {
  const path = issue.instancePath.replace(/^\//, '').replaceAll('/', '.');
  const field = path || (context === 'body' ? 'body' : context);
  const params = issue.params;
  switch (issue.keyword) {
    case 'additionalProperties':
      return `unknown ${context === 'body' ? 'field' : 'parameter'} "${path ? `${path}.` : ''}${String(params.additionalProperty)}"`;
    case 'required':
      return `${path ? `${path}.` : ''}${String(params.missingProperty)} is required`;
    case 'type':
      return `${field} must be ${article(String(params.type))}`;
    case 'minLength':
      return params.limit === 1
        ? `${field} must not be empty`
        : `${field} must be at least ${params.limit} characters`;
    case 'maxLength':
      return `${field} must be at most ${params.limit} characters`;
    case 'pattern':
      return params.pattern === '\\S'
        ? `${field} must not be empty or only whitespace`
        : `${field} has an invalid format`;
    case 'enum':
      return `${field} must be one of ${(params.allowedValues as unknown[]).join(', ')}`;
    case 'minimum':
    case 'maximum':
      return `${field} ${issue.message ?? 'is out of range'}`;
    default:
      return `${field} ${issue.message ?? 'is invalid'}`;
  }
}

function article(type: string): string {
  if (type === 'object') return 'a JSON object';
  if (type === 'integer') return 'an integer';
  return `a ${type}`;
}
