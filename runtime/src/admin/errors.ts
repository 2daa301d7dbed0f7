// The admin's errors: a problem+json answer as an error React-Admin shows, field errors included.

/** A problem+json answer, as an error React-Admin shows: `message`, `status`, `body.errors`. */
export class AdminHttpError extends Error {
  override name = 'AdminHttpError';
  readonly status: number;
  /** The problem document; `errors` maps a field to its message, which forms show beside it. */
  readonly body: Record<string, unknown> & { errors?: Record<string, string> };

  constructor(message: string, status: number, body: AdminHttpError['body']) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

/** What a 412 says: the row was changed by someone else since the form was loaded. */
export const STALE_ROW_MESSAGE =
  'Someone changed this row since you opened it. Reload the page to see the current values, then make your change again.';

interface Problem {
  status?: number;
  detail?: string;
  title?: string;
  code?: string;
  errors?: { field?: string; message?: string }[];
  fields?: string[];
}

/** The field errors a problem names: `errors[]` of 400 and 422, `fields` of a 409 duplicate. */
export function fieldErrors(problem: Problem): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const error of Array.isArray(problem.errors) ? problem.errors : []) {
    // `tagIds/0` is the list's field; a body-level error (no field) stays in the message.
    const field = error.field?.split(/[/.[]/)[0];
    if (field && error.message) errors[field] ??= error.message;
  }
  for (const field of Array.isArray(problem.fields) ? problem.fields : []) {
    errors[field] ??= 'another row already has this value';
  }
  return errors;
}

export async function problemError(res: Response): Promise<AdminHttpError> {
  const problem = ((await res.json().catch(() => ({}))) ?? {}) as Problem;
  const errors = fieldErrors(problem);
  const message =
    res.status === 412
      ? STALE_ROW_MESSAGE
      : problem.detail || problem.title || `the API answered ${res.status}`;
  return new AdminHttpError(message, res.status, {
    ...(problem as Record<string, unknown>),
    ...(Object.keys(errors).length > 0 ? { errors } : {}),
  });
}
