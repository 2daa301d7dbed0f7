// Base error of @slicekit/runtime: every error the runtime throws extends it.

/** Every error thrown by @slicekit/runtime; `code` is stable and documented in docs/runtime.md. */
export class SlicekitError extends Error {
  override name = 'SlicekitError';
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
