import { ApiError } from '../src/api/client';
import { describeError } from '../src/ui/describe-error';

describe('what the console says when a call fails', () => {
  it('a 403 names the roles that may and who can grant one', () => {
    const text = describeError(new ApiError(403, 'FORBIDDEN', 'Viewers may only read'));
    expect(text).toBe(
      'Viewers may only read. Your role in this tenant does not allow this (a viewer may only read; managing members needs owner or admin): ask an owner or admin of the tenant.',
    );
  });

  it('a 429 says how long to wait, from Retry-After, and until when', () => {
    const now = new Date('2026-01-01T10:00:00Z');
    const text = describeError(new ApiError(429, 'RATE_LIMITED', 'Too many', 42), now);
    const at = new Date('2026-01-01T10:00:42Z').toLocaleTimeString();
    expect(text).toBe(`Too many requests. Try again in 42 seconds (at ${at}).`);
    expect(describeError(new ApiError(429, 'RATE_LIMITED', 'Too many', 1), now)).toMatch(
      /in 1 second \(/,
    );
    expect(describeError(new ApiError(429, 'RATE_LIMITED', 'Too many'))).toBe(
      'Too many requests. Try again in a minute.',
    );
  });

  it("otherwise the server's message, or a connection hint when there was no answer", () => {
    expect(describeError(new ApiError(400, 'VALIDATION_ERROR', 'Invalid email.'))).toBe(
      'Invalid email.',
    );
    // A 400 whose title says little carries what was wrong in its detail.
    expect(
      describeError(
        new ApiError(
          400,
          'VALIDATION_ERROR',
          'Validation failed',
          undefined,
          'Invalid export request: columns.0: unknown column "x".',
        ),
      ),
    ).toBe('Validation failed: Invalid export request: columns.0: unknown column "x".');
    expect(
      describeError(
        new ApiError(
          503,
          'SERVICE_UNAVAILABLE',
          'Service unavailable',
          5,
          'Too many exports are running; try again in 5 seconds',
        ),
      ),
    ).toBe('Service unavailable: Too many exports are running; try again in 5 seconds.');
    expect(
      describeError(
        new ApiError(403, 'FORBIDDEN', 'Forbidden', undefined, 'Viewers may only read'),
      ),
    ).toMatch(/^Viewers may only read\. Your role/);
    expect(describeError(new TypeError('Failed to fetch'))).toBe(
      'Something went wrong. Check your connection.',
    );
  });
});
