// HTTP-level errors: a status, a machine-readable code and a sentence for the caller (bad body, credentials, limits).

export class UserError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "UserError";
  }

  toBody(): Record<string, unknown> {
    return { error: this.code, message: this.message, ...this.details };
  }
}
