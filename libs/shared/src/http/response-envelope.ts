import type { Response } from 'express';
import type { AppError } from '../errors';

/** The success envelope (specified: `success` (true), `data`, `message`). */
export interface SuccessEnvelope<T> {
  success: true;
  data: T;
  message: string;
}

/** The failure envelope (specified: `success` (false), `error`, `code`, `message`, `details`). */
export interface FailureEnvelope {
  success: false;
  error: string;
  code: string;
  message: string;
  details: unknown;
}

export function successBody<T>(data: T, message = 'OK'): SuccessEnvelope<T> {
  return { success: true, data, message };
}

export function failureBody(err: AppError): FailureEnvelope {
  return {
    success: false,
    error: err.error,
    code: err.code,
    message: err.message,
    details: err.details,
  };
}

/** Sends `{ success: true, data, message }` with the given status (200 by default). */
export function sendSuccess<T>(
  res: Response,
  data: T,
  options: { status?: number; message?: string } = {},
): void {
  res.status(options.status ?? 200).json(successBody(data, options.message));
}
